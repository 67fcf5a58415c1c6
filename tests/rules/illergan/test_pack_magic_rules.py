"""What no pack may change about magic and faith (issue 17 item 10): a spell's minimum level (I-L216-217),
a cult's 3/2/2/2/1 divine powers over levels 1-5 (I-L603, TX-12), and only the Inquisiteur has no magic
while no class must choose one (I-L336)."""

from __future__ import annotations

import json

import msgspec
import pytest
from harness import Table
from helpers import refused

from cristal_events.errors import ContentError
from cristal_events.rulesets.illergan import heroes as H
from cristal_events.rulesets.illergan.character import Choices
from cristal_events.rulesets.illergan.content import core_pack, decode_pack, example_pack, merge

LYSA = dict(Fo=2, Dex=45, Vit=40, Vol=55, Mana=60, E=12, Cha=35, Sav=50, Dep=5, Agilité=50, Adresse=40)


def _merge(data, base=None):
    return merge(base or core_pack(), decode_pack(json.dumps({"name": "p", **data}), source="p.json"), source="p.json")


def test_a_spell_minimum_level_is_never_changed():
    # Jet de lave is "niveau minimum 4" (I-L216); "impossible à modifier" (I-L217), override or not
    with pytest.raises(ContentError, match="changes the minimum level of the spell 'Jet de lave' from 4 to 2"):
        _merge({"spells": [{"name": "Jet de lave", "magic": "Yarlysy", "min_level": 2, "override": True}]})
    # ... nor one a first pack stated, by a later pack
    first = _merge({"spells": [{"name": "Nova", "magic": "Yarlysy", "min_level": 3}]})
    with pytest.raises(ContentError, match="from 3 to 1"):
        _merge({"spells": [{"name": "Nova", "magic": "Yarlysy", "min_level": 1, "override": True}]}, first)


def _pds(levels, cult="Vikasar"):
    return {"divine_powers": [{"name": f"PD{i}", "cult": cult, "level": lvl} for i, lvl in enumerate(levels)]}


def test_divine_powers_are_3_2_2_2_1_over_levels_1_to_5():
    full = _merge(_pds([1, 1, 1, 2, 2, 3, 3, 4, 4, 5]))  # TX-12: 10 = 3 + 2 + 2 + 2 + 1 (I-L603)
    assert len(full.divine_powers) == 10
    with pytest.raises(ContentError, match="gives the Vikasar cult 4 divine powers of level 1; a cult has 3"):
        _merge(_pds([1, 1, 1, 1]))
    with pytest.raises(ContentError, match="gives the Vikasar cult 2 divine powers of level 5; a cult has 1"):
        _merge(_pds([5, 5]))
    with pytest.raises(ContentError, match="level 6; divine powers are of levels 1 to 5"):
        _merge(_pds([6]))
    two_cults = {"divine_powers": [{"name": "A", "cult": "Vikasar", "level": 5}, {"name": "B", "cult": "Dieu ailé", "level": 5}]}
    assert len(_merge(two_cults).divine_powers) == 2  # one level-5 power per cult (I-L603)


def test_only_the_inquisiteur_is_magic_less():
    with pytest.raises(ContentError, match="makes the Guerrier class magic-less; only the Inquisiteur has no magic"):
        _merge({"classes": [{"name": "Guerrier", "has_magic": False}]})
    with pytest.raises(ContentError, match="gives the Inquisiteur class magic"):
        _merge({"classes": [{"name": "Inquisiteur", "religious": True, "has_magic": True, "override": True}]})


@pytest.fixture
def camp():
    c = Table(name="Création", ruleset="illergan", seed=5)
    c.execute(H.LoadPack(name="example", data=msgspec.to_builtins(example_pack())))
    return c


def _create(camp, cid, class_name, magics=(), **kw):
    return H.CreateHero(character=cid, choices=Choices(name=cid.title(), race="Humain", class_name=class_name,
                                                       heritage="Enfant des rues", magics=magics, **kw),
                        characteristics=LYSA, pv=30, pm=40, rn=0, gift_face=5)


def test_no_class_must_choose_a_magic_and_only_the_inquisiteur_has_none(camp):
    # I-L336: "aucune classe n'est obligée d'en choisir une et seule la classe inquisiteur n'en a aucune"
    camp.execute(_create(camp, "mira", "Mage"))  # a Mage with no magic
    assert camp.state().rules.characters["mira"].magics == {}
    camp.execute(_create(camp, "bran", "Guerrier", ("Yarlysy",)))  # a Guerrier with one
    assert list(camp.state().rules.characters["bran"].magics) == ["Yarlysy"]
    refused(camp, _create(camp, "ines", "Inquisiteur", ("Yarlysy",), cult="Vikasar"),
            "The Inquisiteur class has no magic (I-L336).")
    refused(camp, _create(camp, "tom", "Mage", ("Yarlysy", "Fymasy")),
            "A Mage chooses at most 1 magic(s) at creation (I-L336), not 2.")
