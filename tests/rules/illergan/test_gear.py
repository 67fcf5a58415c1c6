"""Equipment slots and charges (I-L29-55) decided by the rules (tests/harness.py).

The charge limit is [10 + Fo] (I-L43; ENC-1: Fo 3 → 13); equipped objects, belt and quiver contents
are not charges (I-L46-48); one object in each hand (I-L32). The charges per object are the EXAMPLE
pack's (G2: the text's table is missing).
"""

from __future__ import annotations

import msgspec
import pytest

from cristal_events.rulesets.illergan import gear
from cristal_events.rulesets.illergan import heroes as H
from cristal_events.rulesets.illergan.character import Choices
from cristal_events.rulesets.illergan.content import example_pack
from harness import Table
from helpers import refused

STATS = dict(Fo=3, Dex=50, Vit=60, Vol=40, Mana=10, E=8, Cha=30, Sav=30, Dep=5, Agilité=40, Adresse=60)


def make(**settings):
    c = Table(name="Sac", ruleset="illergan", seed=2, settings=settings)
    c.execute(H.LoadPack(name="example", data=msgspec.to_builtins(example_pack())))
    c.execute(H.CreateHero(character="thor", choices=Choices(name="Thor", race="Humain", class_name="Guerrier",
                                                             heritage="Enfant des rues"),
                           characteristics=STATS, pv=40, pm=0, rn=10, gift_face=3, copper=90000))
    return c


@pytest.fixture
def camp():
    c = make()
    return c


def hero(c):
    return c.state().rules.characters["thor"]


def load(c):
    from cristal_events.rulesets.illergan.state import content_of

    return gear.load(hero(c), content_of(c.state().rules))




def test_the_bag_holds_10_plus_fo_charges(camp):
    assert load(camp).max_charges == 13  # ENC-1: Fo 3 (I-L43)
    camp.execute(H.Carry(character="thor", item="Corde de 10 mètres", qty=5, reason="le grenier"))  # 2 each
    camp.execute(H.Carry(character="thor", item="Torche", qty=3))
    assert load(camp).charges == 13
    refused(camp, H.Carry(character="thor", item="Torche", qty=1),
            "Thor would carry 14 charges in the bag and satchel, more than [10 + Fo] = 13 (I-L43).")
    refused(camp, H.Trade(character="thor", item="Stylet"),
            "Thor would carry 14 charges in the bag and satchel, more than [10 + Fo] = 13 (I-L43).")
    camp.execute(H.AwardXp(character="thor", amount=100, reason="la tour"))
    camp.execute(H.BuyXp(character="thor", kind="characteristic", target="Fo", value=1, heritage=True))
    assert (hero(camp).max_charges, load(camp).max_charges) == (14, 14)  # the limit follows Fo
    camp.execute(H.Trade(character="thor", item="Stylet"))


def test_equipped_objects_and_belt_contents_are_not_charges(camp):
    camp.execute(H.Trade(character="thor", item="Cotte de mailles"))
    assert load(camp).charges == 8
    camp.execute(H.Equip(character="thor", slot="armour", item="Cotte de mailles"))  # worn: no charge (I-L48)
    camp.execute(H.Carry(character="thor", item="Potion de soin", qty=4))  # on the belt (I-L46)
    camp.execute(H.Carry(character="thor", item="Bottes", qty=2))  # one pair worn, the other in the bag (I-L41, I-L47)
    assert load(camp).charges == 2


def test_one_object_in_each_hand(camp):
    camp.execute(H.Equip(character="thor", slot="weapon", item="Hache à deux mains"))
    refused(camp, H.Equip(character="thor", slot="shield", item="Écu d'écorce clouée"),
            "Thor cannot equip that: the limit is one object in each hand (I-L32).")
    camp.execute(H.Equip(character="thor", slot="weapon", item="Stylet"))
    camp.execute(H.Equip(character="thor", slot="shield", item="Écu d'écorce clouée"))


def test_leaving_objects_and_a_missing_charge_value(camp):
    refused(camp, H.Carry(character="thor", item="Torche", qty=-1), "Thor carries 0 Torche, not 1.")
    refused(camp, H.Carry(character="thor", item="Grimoire", qty=1),
            "The charges of 'Grimoire' is not set in this campaign's content pack (Part D: G2 encumbrance table).")


def test_a_campaign_may_allow_encumbrance():
    c = make(allow_encumbrance=True)
    c.execute(H.Carry(character="thor", item="Corde de 10 mètres", qty=7))
    enc = load(c)
    assert (enc.charges, enc.max_charges, enc.encumbered) == (14, 13, True)  # I-L45: encumbered, not refused
