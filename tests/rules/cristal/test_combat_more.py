"""Combat gaps of issue 5 closed in phase 2: projectiles consumed, Chance on every kind of roll (L56-L58),
Verrou Cristallin and Vision Cristalline as commands (L1119-L1135; their CLI tests are in
tests/cli/test_cristal_crystal_cli.py). Values from seed 000."""

from __future__ import annotations

import pytest
from harness import Table
from helpers import refused

from cristal_events.errors import RuleError
from cristal_events.rulesets.cristal import characters as C
from cristal_events.rulesets.cristal import fights as F


@pytest.fixture
def camp():
    return Table(name="Gaps", ruleset="cristal", rounding="round", seed=5)


def log_length(c):
    return c.last_position()


def qty(c, who, item):
    return next((i.qty for i in c.state().rules.characters[who].items if i.name == item), 0)


# --------------------------------------------------------------------------- projectiles

@pytest.fixture
def archer(camp):
    camp.execute(C.CreateCharacter(id="robin", race="Humain"))
    camp.execute(C.AddItem(character="robin", item="Arc"))
    camp.execute(C.EquipItem(character="robin", item="Arc"))
    camp.execute(C.AddItem(character="robin", item="Flèche", qty=3))
    camp.execute(F.StartCombat(combat="r", fighters=["robin", "cible"], its={"cible": 100},
                               stats={"cible": {"DP": 30, "PV": 10}}))
    return camp


def shoot(c, chain=False, faces=(1,)):
    return c.execute(F.Attack(combat="r", actor="robin", target="cible", weapon="Arc", projectile="Flèche",
                              chain=chain), faces=list(faces))


def test_each_shot_takes_one_projectile_from_the_bag(archer):
    # L1338-L1340: the arrow is shot; the sheet's QTÉ follows (Feuille de Personnage, équipement)
    ev = shoot(archer)[0].event
    assert ev.projectiles_used == 1 and qty(archer, "robin", "Flèche") == 2
    sheet = C.sheet(archer.state().rules.characters["robin"], C.content_of(archer.state().rules), "round")
    assert [i["qty"] for i in sheet["items"] if i["name"] == "Flèche"] == [2]


def test_a_chained_attack_shoots_two_projectiles_and_the_last_one_empties_the_line(archer):
    # L1363: two attacks in one IT, hence two arrows
    shoot(archer, chain=True, faces=(1, 1))
    assert qty(archer, "robin", "Flèche") == 1
    shoot(archer)
    assert all(i.name != "Flèche" for i in archer.state().rules.characters["robin"].items)


def test_no_projectile_left_is_refused_and_nothing_appended(archer):
    shoot(archer, chain=True, faces=(1, 1))
    before = log_length(archer)
    with pytest.raises(RuleError, match="^robin has 1 Flèche left and the attack needs 2.$"):
        shoot(archer, chain=True, faces=(1, 1))
    shoot(archer)
    with pytest.raises(RuleError, match="^robin has 0 Flèche left and the attack needs 1.$"):
        shoot(archer)
    assert log_length(archer) == before + 2  # the one shot that was allowed and its dice record


# --------------------------------------------------------------------------- Chance (L56-L58, D16)

def fighter(c, fid, name="c"):
    return c.state().rules.combats[name].fighters[fid]


def pv(c, fid, name="c"):
    return F.numbers(c.state().rules, c.state().rules.combats[name], fid, "round").PV


@pytest.fixture
def lucky(camp):
    # L56: "un personnage qui possède une Chance de 4, pourra reprendre 4 lancers de dés au cours de la même journée"
    camp.execute(C.CreateCharacter(id="thor", race="Humain", luck=4))
    camp.execute(F.StartCombat(combat="c", fighters=["thor", "york"], its={"york": 50},
                               stats={"thor": {"ATT": 5, "DMG": "1d6"}, "york": {"DP": 0, "PV": 20}}))
    return camp


def test_chance_4_redoes_four_damage_rolls_a_day_then_refuses(lucky):
    c = lucky
    c.execute(F.Attack(combat="c", actor="thor", target="york"), faces=[15, 2])
    assert pv(c, "york") == 18
    for n, face in enumerate([5, 1, 6, 3], start=1):
        ev = c.execute(F.Reroll(combat="c", actor="thor"), faces=[face])[0].event
        assert isinstance(ev, F.RollRedone) and ev.kind == "damage" and ev.left == 4 - n
        assert c.state().rules.characters["thor"].pools_used["chance"] == n
    assert pv(c, "york") == 17  # the last roll counts (3), not the best: "en ignorant le résultat actuel" (L58)
    redone = [r.event for r in c.stream("combat:c") if isinstance(r.event, F.RollRedone)]
    assert [(e.old.total, e.roll.total) for e in redone] == [(2, 5), (5, 1), (1, 6), (6, 3)]  # every roll stays
    refused(c, F.Reroll(combat="c", actor="thor"), "thor has no Chance reroll left today (L56).", faces=[6])


def test_a_missed_attack_redone_then_its_damage(lucky):
    c = lucky
    c.execute(F.StartCombat(combat="d", fighters=["thor", "b"], its={"b": 50},
                            stats={"thor": {"ATT": 5, "DMG": "1d6"}, "b": {"DP": 12, "PV": 10}}))
    c.execute(F.Attack(combat="d", actor="thor", target="b"), faces=[2])  # 5 + 2 = 7, not > 12
    ev = c.execute(F.Reroll(combat="d", actor="thor"), faces=[15, 4])[0].event  # 20 > 12, 4 damage
    assert isinstance(ev, F.Rerolled) and ev.swing.hit and ev.old.total == 2
    ev = c.execute(F.Reroll(combat="d", actor="thor"), faces=[6])[0].event  # now the last roll is the damage
    assert ev.kind == "damage" and (ev.damage_before, ev.damage) == (4, 6)
    assert pv(c, "b", "d") == 4


def test_chance_on_the_concentration_of_rayon_magique(camp):
    # TV-15 (L1052-L1069): Xar CNC 4, Rayon Magique 11 PM (Distance 3, Dommage 8), CNC du sort 7; Taz's DM 3
    # leaves [1d6]. A first d20 of 2 fails (6 < 7); Chance gives 8: 12 >= 7, the spell goes off, combustion 4.
    camp.execute(F.StartCombat(combat="c", fighters=["xar", "taz"], its={"taz": 2},
                               stats={"xar": {"CNC": 4, "PM": 20, "CHANCE": 1}, "taz": {"DM": 3, "PV": 10}}))
    recs = camp.execute(F.CastSpell(combat="c", actor="xar", spell="Rayon Magique",
                                    effects={"Distance": 3, "Dommage": 8}, targets=["taz"], time="INSTANTANÉ"),
                        faces=[2])
    assert not recs[0].event.success and recs[0].event.pm_cost == 11
    recs = camp.execute(F.Reroll(combat="c", actor="xar"), faces=[8, 4])
    ev, released = recs[0].event, recs[1].event
    assert (ev.kind, ev.total, ev.success, ev.old.total) == ("concentration", 12, True, 2)
    assert released.results[0].effects[1].amount == "1d6" and released.results[0].damage == 4
    assert pv(camp, "taz") == 6 and camp.state().rules.combats["c"].it["xar"] == 4
    assert fighter(camp, "xar").pm == 9  # the PM were paid once (L1022)


def test_chance_turns_a_failed_boule_de_feu_into_an_incantation(camp):
    # L1306-L1313: Boule de Feu CNC 16, incantation 10, combustion 8. CNC 10 + 5 fails; + 9 succeeds.
    camp.execute(F.StartCombat(combat="c", fighters=["york", "thor"], its={"thor": 50},
                               stats={"york": {"CNC": 10, "PM": 20, "CHANCE": 2}, "thor": {"PV": 20, "DM": 0}}))
    camp.execute(F.CastSpell(combat="c", actor="york", spell="Boule de Feu", effects={"Dommage": 4},
                             targets=["thor"]), faces=[5])
    assert fighter(camp, "york").incantation is None and camp.state().rules.combats["c"].it["york"] == 10
    ev = camp.execute(F.Reroll(combat="c", actor="york"), faces=[9])[0].event
    assert (ev.total, ev.margin, ev.success) == (19, 3, True)
    inc = fighter(camp, "york").incantation
    assert (inc.spell, inc.until, inc.combustion, inc.margin) == ("Boule de Feu", 10, 8, 3)
    camp.execute(F.ReleaseSpell(combat="c", actor="york"), faces=[3, 4])
    assert camp.state().rules.combats["c"].it["york"] == 18 and pv(camp, "thor") == 13


def test_chance_on_initiative_before_the_fight_begins(camp):
    # L1319: IT = base - ([1d6] + REF x 2); REF 2, d6 4 -> -8; Chance, d6 1 -> -5
    camp.execute(F.StartCombat(combat="c", fighters=["thor", "york"],
                               stats={"thor": {"REF": 2, "CHANCE": 1, "PV": 9}, "york": {"REF": 0, "PV": 9}}))
    camp.execute(F.RollInitiative(combat="c"), faces=[4, 1])
    ev = camp.execute(F.Reroll(combat="c", actor="thor"), faces=[1])[0].event
    assert (ev.kind, ev.it_before, ev.it_after) == ("initiative", -8, -5)
    assert camp.state().rules.combats["c"].it == {"thor": -5, "york": -1}


def test_negative_chance_the_gm_orders_the_reroll(camp):
    # L58: "c'est le maître de jeu qui décide lorsque les dés doivent être rebrassés"; |Chance| a day (D16)
    camp.execute(F.StartCombat(combat="c", fighters=["taz", "york"], its={"york": 50},
                               stats={"taz": {"ATT": 5, "DMG": "1d6", "CHANCE": -1}, "york": {"DP": 0, "PV": 20}}))
    camp.execute(F.Attack(combat="c", actor="taz", target="york"), faces=[20, 6])
    with pytest.raises(RuleError, match="^taz has Chance -1; only the GM decides when its dice are rerolled \\(L58\\).$"):
        camp.execute(F.Reroll(combat="c", actor="taz"), faces=[1])
    ev = camp.execute(F.Reroll(combat="c", actor="taz", gm=True), faces=[1])[0].event
    assert (ev.by, ev.damage_before, ev.damage, ev.left) == ("gm", 6, 1, 0)
    assert pv(camp, "york") == 19


@pytest.mark.parametrize("setup, reroll, message", [
    ([F.Attack(combat="c", actor="thor", target="york"), ([1],),
      F.TakeAction(combat="c", actor="thor", seconds=5), (None,)],
     F.Reroll(combat="c", actor="thor"), "thor has acted since that roll; Chance redoes a roll before acting again."),
    # issue 16 item 4: a duration roll is now redone (test_combat_issue16), and every crystal roll, Fermeture
    # and Libération included (test_magic_knowledge, test_chance_redoes_the_fermeture_roll below)
    ([], F.Reroll(combat="c", actor="thor"), "thor has made no roll in this combat."),
    ([], F.Reroll(combat="c", actor="thor", gm=True),
     "thor has Chance 2; the GM orders rerolls only for a negative Chance (L58)."),
], ids=["acted-since", "no-roll", "gm-on-positive-chance"])
def test_chance_refusals_append_nothing(camp, setup, reroll, message):
    camp.execute(F.StartCombat(combat="c", fighters=["thor", "york"], its={"york": 50},
                               stats={"thor": {"ATT": 5, "DMG": "1d6", "CHANCE": 2, "PM": 30, "CNC": 10},
                                      "york": {"DP": 30, "PV": 20}}))
    for cmd, (faces,) in zip(setup[::2], setup[1::2]):
        camp.execute(cmd, faces=faces)
    refused(camp, reroll, message, faces=[3])


def test_chance_redoes_the_fermeture_roll(camp):
    # L56 "Tous les types de jet de dés": once refused, Fermeture Cristalline's d20 is redone (issue 16 item 4):
    # CNC 10 + 10 = 20 >= 12 stored Rayon Magique; Chance d20 1: 11 < 12, the operation fails (L1077)
    camp.execute(F.StartCombat(combat="c", fighters=["thor", "york"], its={"york": 50},
                               stats={"thor": {"ATT": 5, "DMG": "1d6", "CHANCE": 2, "PM": 30, "CNC": 10},
                                      "york": {"DP": 30, "PV": 20}}))
    camp.execute(F.StoreInCrystal(combat="c", actor="thor", crystal="bleu", spell="Rayon Magique",
                                  effects={"Distance": 3, "Dommage": 8}, capacity=19, time="4"), faces=[8, 10])
    assert camp.state().rules.crystals["bleu"].stored.name == "Rayon Magique"
    rec = camp.execute(F.Reroll(combat="c", actor="thor"), faces=[1])[0]
    assert (rec.event.spell, rec.event.success, rec.event.outcome, rec.event.left) == (
        "Fermeture Cristalline", False, "failed", 1)
    assert camp.state().rules.crystals["bleu"].stored is None
