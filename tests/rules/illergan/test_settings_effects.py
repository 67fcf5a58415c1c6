"""Two Part F settings that decide something (tests/harness.py): the initiative kept for the whole
fight (A1, I-L4-7) and the alcohol thresholds from the band's characteristics (A25, I-L126-134)."""

from __future__ import annotations

import msgspec
from harness import Table
from helpers import refused

from cristal_events.rulesets.illergan import fights as F
from cristal_events.rulesets.illergan import heroes as H
from cristal_events.rulesets.illergan import tavern as T
from cristal_events.rulesets.illergan.character import Choices
from cristal_events.rulesets.illergan.content import example_pack

THOR = dict(Fo=4, Dex=50, Vit=60, Vol=40, Mana=10, E=8, Cha=30, Sav=30, Dep=5, Agilité=40, Adresse=60)


def make(**settings):
    c = Table(name="Réglages", ruleset="illergan", seed=4, settings=settings)
    c.execute(H.LoadPack(name="example", data=msgspec.to_builtins(example_pack())))
    c.execute(H.CreateHero(character="thor", choices=Choices(name="Thor", race="Humain", class_name="Guerrier",
                                                             heritage="Enfant des rues"),
                           characteristics=THOR, pv=40, pm=0, rn=10, gift_face=3))
    c.execute(H.CreateCreature(character="gob", name="Gobelin", pv=20,
                               characteristics=dict(Fo=2, Dex=20, Vol=10, Vit=20, Adresse=45)))
    return c


def test_the_initiative_of_the_first_turn_may_be_kept_for_the_fight():
    c = make(initiative_reroll_each_turn=False)
    c.execute(F.StartFight(fight="f", participants=("thor", "gob")))
    first = c.execute(F.RollInitiative(fight="f"), faces=[10, 15])[0].event
    assert [(e.character, e.score, e.acts) for e in first.entries] == [("thor", 100, True), ("gob", 45, False)]
    second = c.execute(F.RollInitiative(fight="f"))[0].event  # no die: the order is kept (A1)
    assert (second.turn, second.kept, second.order, second.entries) == (2, True, ["thor", "gob"], [])
    assert c.state().rules.fights["f"].acting == ("thor",)  # 45 ≤ 50 still loses every turn (I-L7)
    refused(c, F.RollInitiative(fight="f", maluses={"thor": 10}),
            "The initiative is kept from the first turn (initiative_reroll_each_turn=false); no new malus applies "
            "(I-L4-7, A1).")


def test_by_default_the_initiative_is_rolled_again_each_turn():
    c = make()
    c.execute(F.StartFight(fight="f", participants=("thor", "gob")))
    c.execute(F.RollInitiative(fight="f"), faces=[10, 15])
    second = c.execute(F.RollInitiative(fight="f"), faces=[40, 90])[0].event
    assert [(e.character, e.score) for e in second.entries] == [("thor", 130), ("gob", 120)] and not second.kept


def test_alcohol_thresholds_from_the_base_or_the_bands_characteristics():
    from fractions import Fraction

    thor = make().state().rules.characters["thor"]
    sober = [T.thresholds_of(thor, _settings(x)) for x in ("base", "modified")]
    # sober: G = 60/25, T = G + 40/15, Ti = T + (4 + 8)/4, O = Ti + 7 (I-L126-129), the same either way
    assert sober[0] == sober[1]
    assert (sober[0].gaiete, sober[0].troublitude, sober[0].titubage, sober[0].oubli) == (
        Fraction(12, 5), Fraction(76, 15), Fraction(121, 15), Fraction(226, 15))
    drunk = msgspec.structs.replace(thor, alc=msgspec.structs.replace(thor.alc, band="titubage"))
    # at Titubage −3 Fo and −5 Vol (I-L133): T − G = 35/15 instead of 40/15, Ti − T = (1 + 8)/4 instead of 3
    b, m = T.thresholds_of(drunk, _settings("base")), T.thresholds_of(drunk, _settings("modified"))
    assert (b.troublitude - b.gaiete, b.titubage - b.troublitude) == (Fraction(40, 15), 3)
    assert (m.troublitude - m.gaiete, m.titubage - m.troublitude) == (Fraction(35, 15), Fraction(9, 4))


def _settings(inputs):
    from cristal_events.rulesets.illergan.settings import IllerganSettings

    return IllerganSettings(alc_threshold_inputs=inputs)
