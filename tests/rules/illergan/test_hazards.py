"""Falls (I-L428), thrown objects (I-L400-405) and blindness / invisibility (I-L413) through the engine.

Vectors from the catalogue's Part B.2: the falling table (§39), THR-1/2/4 (§22) and the blindness
table (§38).
"""

from __future__ import annotations

import msgspec
import pytest
from harness import Table
from helpers import refused

from cristal_events.rulesets.illergan import fights as F
from cristal_events.rulesets.illergan import heroes as H
from cristal_events.rulesets.illergan import trials as R
from cristal_events.rulesets.illergan.character import Choices, SkillEntry
from cristal_events.rulesets.illergan.content import example_pack
from cristal_events.rulesets.illergan.settings import DEFAULT
from cristal_events.rulesets.illergan.state import Hero

THOR = dict(Fo=4, Dex=50, Vit=60, Vol=40, Mana=10, E=8, Cha=30, Sav=30, Dep=5, Agilité=40, Adresse=60)


@pytest.fixture
def camp():
    c = Table(name="Falaise", ruleset="illergan", seed=11)
    c.execute(H.LoadPack(name="example", data=msgspec.to_builtins(example_pack())))
    c.execute(H.CreateHero(character="thor", choices=Choices(name="Thor", race="Humain", class_name="Guerrier",
                                                             heritage="Enfant des rues"),
                           characteristics=THOR, pv=40, pm=0, rn=10, gift_face=2))
    c.execute(H.CreateCreature(character="gob", name="Gobelin", pv=30,
                               characteristics=dict(Fo=2, Dex=60, Vol=10, Vit=20, Adresse=45, Agilité=50)))
    return c


def hero(c, cid):
    return c.state().rules.characters[cid]




@pytest.mark.parametrize(("who", "height", "safe", "pv", "down"), [
    ("thor", 5, 3, 20, True),      # Agilité 40: 1 + 40/20 = 3 m, 5 × 2² = 20 PV
    ("thor", 3, 3, 0, False),      # at the safe height: no harm
    ("gob", 5, 3.5, 12, True),     # Agilité 50: 5 × 1.5² = 11.25, rounded up (A30 fall_pv_rounding=ceil)
], ids=["agi40-5m", "agi40-3m", "agi50-5m"])
def test_falls(camp, who, height, safe, pv, down):
    ev = camp.execute(R.TakeFall(character=who, height=height))[0].event
    assert (ev.safe_height, ev.pv_lost, ev.knocked_down) == (safe, pv, down)  # I-L428
    assert hero(camp, who).pv == hero(camp, who).pv_max - pv


def test_a_deadly_fall_can_be_cancelled_by_a_destiny_point(camp):
    ev = camp.execute(R.TakeFall(character="thor", height=6))[0].event  # 5 × 3² = 45 > 40 PV
    assert (ev.pv_after, ev.dead) == (-5, True)
    camp.execute(F.SpendDestiny(character="thor", narrative="Une branche amortit la chute"))  # I-L377
    assert (hero(camp, "thor").dead, hero(camp, "thor").pv) == (False, 40)


def test_a_fall_in_a_fight_knocks_down(camp):
    camp.execute(F.StartFight(fight="pont", participants=("thor", "gob")))
    ev = camp.execute(R.TakeFall(character="gob", height=5, fight="pont"))[0].event
    assert ev.turn_after.budget.major == 0  # knocked down: a major action lost (I-L416)
    refused(camp, F.Attack(fight="pont", attacker="gob", target="thor", weapon=""),
            "Gobelin: No major action is left this turn (I-L241).", faces=[10])


@pytest.mark.parametrize(("face", "offset"), [(1, 4.9), (30, 2), (50, 0), (70, 2)],
                         ids=["THR-1", "THR-2", "THR-3", "THR-4-abs"])
def test_throws(camp, face, offset):
    ev = camp.execute(R.Throw(character="thor", what="pierre", distance=8, max_range=15), faces=[face])[0].event
    assert ev.offset_m == offset  # |50 − Dé100| / 10 m (I-L404, A21)


def test_throw_refusals(camp):
    refused(camp, R.Throw(character="thor", what="pierre", distance=0.5, max_range=15),
            "A throw reaches 1 to 15 m (I-L402-403), not 0.5 m.")
    refused(camp, R.Throw(character="thor", what="tabouret", distance=5, max_range=40),
            "The game master sets a thrown object's range between 10 and 30 m (I-L403), not 40 m.")


@pytest.mark.parametrize(("olf", "aud", "threshold"), [(0, 0, 12), (30, 40, 15), (100, 100, 60)],
                         ids=["divisor-5", "divisor-4", "immune"])
def test_a_blind_dex_check_is_divided(olf, aud, threshold):
    blind = Hero(id="x", name="X", characteristics={"Dex": 60}, conditions=("aveuglé",),
                 skills={"Acuité olfactive": SkillEntry(pct=olf, rank=1), "Acuité auditive": SkillEntry(pct=aud, rank=1)})
    assert R.blinded(blind, 60, DEFAULT) == threshold  # Dex 60 / (5 − ⌊(olf + aud)/50⌋) (I-L413)


def test_blindness_through_checks_and_attacks(camp):
    camp.execute(R.SetCondition(character="thor", condition="aveuglé", reason="sable dans les yeux"))
    # Thor: olfactory 20 + auditory 40 = 60 → divisor 4; Dex 50 → 12 (floor, A29)
    ev = camp.execute(R.RollCheck(character="thor", what="Dex"), faces=[12])[0].event
    assert (ev.threshold, ev.success) == (12, True)
    ev = camp.execute(R.RollCheck(character="thor", what="Sav"), faces=[30])[0].event
    assert ev.threshold == 30  # Savoir is not divided (I-L413 names Dex, Agilité and Adresse)
    refused(camp, R.SetCondition(character="thor", condition="aveuglé"), "Thor is already aveuglé.")
    camp.execute(R.SetCondition(character="thor", condition="aveuglé", on=False))
    camp.execute(R.SetCondition(character="thor", condition="invisible"))
    camp.execute(F.StartFight(fight="nuit", participants=("thor", "gob")))
    ev = camp.execute(F.Attack(fight="nuit", attacker="gob", target="thor", weapon=""), faces=[10])[0].event
    assert (ev.adresse, ev.hit) == (9, False)  # the goblin attacks as if blind: 45 / 5 = 9 (I-L413)
