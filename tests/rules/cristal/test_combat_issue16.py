"""Issue 16, combat items (seed 000): healing wakes a fighter, thrown weapons used up, chained attacks,
weapons by their own names, Chance on every roll, corrections, tie-breaks, abilities outside a fight."""

from __future__ import annotations

import pytest
from harness import Table

from cristal_events import i18n
from cristal_events.errors import CristalError, RuleError
from cristal_events.rulesets.cristal import characters as C
from cristal_events.rulesets.cristal import fights as F


@pytest.fixture
def camp():
    return Table(name="Issue16", ruleset="cristal", rounding="round", seed=5)


def fighter(c, combat, fid):
    return c.state().rules.combats[combat].fighters[fid]


# --------------------------------------------------------------------------- item 22

def test_a_fighter_healed_above_0_pv_wakes_and_acts_again(camp):
    # L369 (unconscious below 0 PV), D8: back above 0 PV the character is conscious again
    camp.execute(C.CreateCharacter(id="thor", race="Humain"))
    pv = camp.state().rules.characters["thor"].pv
    camp.execute(F.StartCombat(combat="t", fighters=["thor", "gob"], its={"gob": 10},
                               stats={"gob": {"ATT": 3, "DP": 10, "PV": 5}}))
    camp.execute(C.Damage(character="thor", amount=pv + 2, reason="chute"))
    assert fighter(camp, "t", "thor").condition == "unconscious"
    with pytest.raises(RuleError, match="thor is unconscious and cannot act"):
        camp.execute(F.TakeAction(combat="t", actor="thor", seconds=2))
    camp.execute(C.Heal(character="thor", amount=4, source="care", reason="bandage"))
    assert camp.state().rules.characters["thor"].pv == 2
    assert fighter(camp, "t", "thor").condition == "conscious"
    camp.execute(F.TakeAction(combat="t", actor="thor", seconds=2))
    assert camp.state().rules.combats["t"].it["thor"] == 2


# --------------------------------------------------------------------------- item 5

def test_an_attack_names_the_weapon_the_character_carries_by_its_own_name(camp):
    # L837: an item is named by the player ("Excalibur"); L1359-L1361: ATT + d20 13 > DP, the DMG rolled
    camp.execute(C.CreateCharacter(id="gustave", race="Humain"))
    camp.execute(C.AddItem(character="gustave", item="Excalibur", properties={"dmg": "2d6", "att": 8, "it": 6}))
    camp.execute(C.EquipItem(character="gustave", item="Excalibur"))
    camp.execute(F.StartCombat(combat="taverne", fighters=["gustave", "rodrigue"], its={"rodrigue": 10},
                               stats={"rodrigue": {"DP": 18, "PV": 20}}))
    ev = camp.execute(F.Attack(combat="taverne", actor="gustave", target="rodrigue", weapon="excalibur"),
                      faces=[13, 4, 4])[0].event
    assert (ev.weapon, ev.att, ev.swings[0].total, ev.swings[0].hit, ev.swings[0].damage) == (
        "Excalibur", 8, 21, True, 8)
    assert camp.state().rules.combats["taverne"].it["gustave"] == 6
    assert camp.state().rules.combats["taverne"].fighters["rodrigue"].pv == 12


# --------------------------------------------------------------------------- item 11

def chain_table(n, dp=10):
    t = Table(name="Chain", ruleset="cristal", rounding="round", seed=5, settings={"chain_attacks": n})
    t.execute(F.StartCombat(combat="c", fighters=["gus", "rod"], its={"rod": 10},
                            stats={"gus": {"ATT": 8, "DMG": "1d6"}, "rod": {"DP": dp, "PV": 30}}))
    return t


def test_the_book_chain_is_two_attacks_each_halved():
    # L1363: ATT 8, d20 15 then 11: (8+15)/2 = 12 > 10 hits, (8+11)/2 = 10 misses; damage 1d6 = 4
    t = chain_table(2)
    ev = t.execute(F.Attack(combat="c", actor="gus", target="rod", chain=True), faces=[15, 11, 4])[0].event
    assert [(s.total, s.hit, s.damage) for s in ev.swings] == [(12, True, 4), (10, False, 0)]


def test_chain_attacks_3_makes_three_attacks_each_divided_by_three():
    # chain_attacks=3 (a GM's "plusieurs attaques", L1363, D14): (8+19)/3 = 9, (8+20)/3 = 9, (8+17)/3 = 8
    t = chain_table(3, dp=8)
    evs = t.execute(F.Attack(combat="c", actor="gus", target="rod", chain=True), faces=[19, 20, 1, 4, 2])
    ev = evs[0].event
    assert [(s.die, s.total, s.hit, s.damage) for s in ev.swings] == [(19, 9, True, 4), (20, 9, True, 2),
                                                                      (1, 3, False, 0)]
    assert t.state().rules.combats["c"].fighters["rod"].pv == 24
    assert t.state().rules.combats["c"].it["gus"] == 6  # one action: the IT of one attack (L1363, L1263)


def test_chain_attacks_off_or_out_of_range_is_refused():
    t = chain_table(0)
    with pytest.raises(RuleError, match="turned off"):
        t.execute(F.Attack(combat="c", actor="gus", target="rod", chain=True), faces=[15, 11])
    with pytest.raises(RuleError, match="chain_attacks"):
        Table(name="Chain", ruleset="cristal", settings={"chain_attacks": 9})


# --------------------------------------------------------------------------- item 2

def test_a_thrown_dagger_leaves_the_hand_and_the_bag(camp):
    # L1352: "dès l'instant où un projectile est lancé, il est à toute fin pratique perdu"; L1340: no FRC
    # bonus on a projectile's DMG (the Dague de jet's 1d4); L1344: FRC x 2 m without penalty
    camp.execute(C.CreateCharacter(id="lia", race="Humain", adjustments={"FRC": 1}))
    camp.execute(C.AddItem(character="lia", item="Dague de jet", qty=2))
    camp.execute(C.EquipItem(character="lia", item="Dague de jet"))
    camp.execute(F.StartCombat(combat="d", fighters=["lia", "gob"], its={"gob": 100},
                               stats={"gob": {"DP": 5, "PV": 20}}))
    ev = camp.execute(F.Attack(combat="d", actor="lia", target="gob", weapon="Dague de jet", distance=2),
                      faces=[10, 3])[0].event
    assert (ev.projectile, ev.projectiles_used, ev.swings[0].damage, ev.dmg) == ("Dague de jet", 1, 3, "1d4")
    items = camp.state().rules.characters["lia"].items
    assert [(i.name, i.qty) for i in items] == [("Dague de jet", 1)]
    camp.execute(F.Attack(combat="d", actor="lia", target="gob", weapon="Dague de jet"), faces=[1])
    assert camp.state().rules.characters["lia"].items == []
    with pytest.raises(RuleError, match="lia has 0 Dague de jet left and the attack needs 1"):
        camp.execute(F.Attack(combat="d", actor="lia", target="gob", weapon="Dague de jet"), faces=[10])


# --------------------------------------------------------------------------- item 24

def test_a_tie_on_it_and_ref_is_broken_by_the_first_entered_faces_of_the_action(camp):
    # L1202: tied on IT and REF, each rolls a die, the higher acts: a 2, b 5 -> b acts; then its d20 12
    camp.execute(F.StartCombat(combat="t", fighters=["a", "b"],
                               stats={"a": {"PV": 5, "DP": 10}, "b": {"PV": 5, "ATT": 0, "DMG": "1d4"}}))
    recs = camp.execute(F.Attack(combat="t", actor="b", target="a"), faces=[2, 5, 12, 3])
    kinds = [type(r.event).__name__ for r in recs]
    assert kinds[:2] == ["TieBroken", "AttackResolved"]
    assert recs[0].event.winner == "b" and recs[1].event.swings[0].total == 12
    assert camp.state().rules.combats["t"].fighters["a"].pv == 2
    # the wrong actor is refused and nothing is written
    camp2 = Table(name="T2", ruleset="cristal", seed=5)
    camp2.execute(F.StartCombat(combat="t", fighters=["a", "b"], stats={"a": {"PV": 5}, "b": {"PV": 5}}))
    before = camp2.last_position()
    with pytest.raises(RuleError, match="It is b's turn"):
        camp2.execute(F.TakeAction(combat="t", actor="a", seconds=2), faces=[2, 5])
    assert camp2.last_position() == before


# --------------------------------------------------------------------------- item 4: Chance on any roll

def pv_of(c, fid, name="c"):
    return F.numbers(c.state().rules, c.state().rules.combats[name], fid, "round").PV


def test_chance_redoes_the_boule_de_feu_damage(camp):
    # L1306-L1313: Boule de Feu, 4 PM of Dommage, Thor DM 0; released with 3 + 4 = 7; L56 "de dommage":
    # Chance rerolls the effect dice 1 and 2: 3 damage, Thor gets 4 PV back
    camp.execute(F.StartCombat(combat="c", fighters=["york", "thor"], its={"thor": 50},
                               stats={"york": {"CNC": 10, "PM": 20, "CHANCE": 2}, "thor": {"PV": 20, "DM": 0}}))
    camp.execute(F.CastSpell(combat="c", actor="york", spell="Boule de Feu", effects={"Dommage": 4},
                             targets=["thor"]), faces=[9])
    camp.execute(F.ReleaseSpell(combat="c", actor="york"), faces=[3, 4])
    assert pv_of(camp, "thor") == 13
    recs = camp.execute(F.Reroll(combat="c", actor="york"), faces=[1, 2])
    ev = recs[0].event
    assert (ev.kind, ev.damage_before, ev.damage, ev.left) == ("effects", 7, 3, 1)
    assert pv_of(camp, "thor") == 17
    assert camp.state().rules.combats["c"].it["york"] == 18  # the combustion is not paid again


def test_chance_redoes_a_duration_roll(camp):
    # L1234: "Chercher un item dans son sac à dos" [1d4]+4: 2 -> 6 s; Chance 4 -> 8 s, IT 6 -> 8
    camp.execute(F.StartCombat(combat="c", fighters=["thor", "york"], its={"york": 50},
                               stats={"thor": {"CHANCE": 1, "PV": 9}, "york": {"PV": 9}}))
    camp.execute(F.TakeAction(combat="c", actor="thor", action="chercher_sac"), faces=[2])
    assert camp.state().rules.combats["c"].it["thor"] == 6
    ev = camp.execute(F.Reroll(combat="c", actor="thor"), faces=[4])[0].event
    assert (ev.kind, ev.total, ev.it_before, ev.it_after) == ("duration", 8, 6, 8)
    assert camp.state().rules.combats["c"].it["thor"] == 8


def test_chance_redoes_a_tie_break_die(camp):
    # L1202: a 5, b 2 -> a acts; b's Chance: 6 -> b acts
    camp.execute(F.StartCombat(combat="c", fighters=["a", "b"],
                               stats={"a": {"PV": 5}, "b": {"PV": 5, "CHANCE": 1}}))
    camp.execute(F.NextTurn(combat="c"), faces=[5, 2])
    assert F.whose_turn(camp.state().rules, "c") == "a"
    recs = camp.execute(F.Reroll(combat="c", actor="b"), faces=[6])
    assert recs[0].event.kind == "tie-break" and recs[1].event.winner == "b"
    assert F.whose_turn(camp.state().rules, "c") == "b"
    camp.execute(F.TakeAction(combat="c", actor="b", seconds=2))


def test_with_chance_disabled_the_sheet_shows_no_reroll():
    # L56: "La Chance est une caractéristique optionnelle"
    for enabled, expected in ((True, 4), (False, 0)):
        t = Table(name="Luck", ruleset="cristal", settings={"chance_enabled": enabled})
        t.execute(C.CreateCharacter(id="thor", race="Humain", luck=4))
        sheet = C.sheet(t.rules.characters["thor"], C.content_of(t.rules), "round", chance_enabled=enabled)
        assert (sheet["chance"]["rerolls"], sheet["chance"]["left"]) == (expected, expected)


# --------------------------------------------------------------------------- item 25

def test_the_time_given_to_a_spell_without_a_printed_temps_is_remembered(camp):
    # Rayon Magique: the book prints no Temps (L1052-L1069); the GM says INSTANTANÉ once
    camp.execute(F.StartCombat(combat="c", fighters=["xar", "taz"], its={"taz": 50},
                               stats={"xar": {"CNC": 4, "PM": 40}, "taz": {"DM": 3, "PV": 30}}))
    with pytest.raises(RuleError, match="not printed; give it with --time"):
        camp.execute(F.CastSpell(combat="c", actor="xar", spell="Rayon Magique",
                                 effects={"Distance": 3, "Dommage": 8}, targets=["taz"]), faces=[8, 4])
    camp.execute(F.CastSpell(combat="c", actor="xar", spell="Rayon Magique", effects={"Distance": 3, "Dommage": 8},
                             targets=["taz"], time="INSTANTANÉ"), faces=[8, 4])
    assert camp.state().rules.spell_times == {"Rayon Magique": "INSTANTANÉ"}
    recs = camp.execute(F.CastSpell(combat="c", actor="xar", spell="Rayon Magique",
                                    effects={"Distance": 3, "Dommage": 8}, targets=["taz"]), faces=[8, 4])
    assert recs[0].event.time == "instantane" and recs[0].event.incantation == 0


def test_names_match_the_same_way_everywhere_and_an_unknown_one_gets_did_you_mean(camp):
    # the book's own names (Épée longue, Humain, Voleur, Boule de Feu): case, accents and spaces aside
    camp.execute(C.CreateCharacter(id="gus", race="humain"))
    camp.execute(C.AddItem(character="gus", item="epee  LONGUE"))
    camp.execute(C.EquipItem(character="gus", item="ÉPÉE LONGUE"))
    camp.execute(F.StartCombat(combat="c", fighters=["gus", "rod"], its={"rod": 10},
                               stats={"rod": {"DP": 30, "PV": 10}}))
    ev = camp.execute(F.Attack(combat="c", actor="gus", target="rod", weapon="Epee longue"), faces=[1])[0].event
    assert ev.weapon == "Épée longue" and camp.state().rules.characters["gus"].race == "Humain"
    with pytest.raises(CristalError, match="Unknown item 'Epee lounge'; Did you mean 'Épée longue'\\?"):
        camp.execute(C.AddItem(character="gus", item="Epee lounge"))
    with pytest.raises(CristalError, match="Unknown race 'Humian'; Did you mean 'Humain'\\?"):
        camp.execute(C.CreateCharacter(id="x", race="Humian"))
    with pytest.raises(CristalError, match="Unknown spell 'Boule de feux'; Did you mean 'Boule de Feu'\\?"):
        camp.execute(F.CastSpell(combat="c", actor="gus", spell="Boule de feux", effects={"Dommage": 2},
                                 targets=["rod"]))
    with pytest.raises(CristalError, match="gus carries no item 'epee courte'; Did you mean 'Épée longue'\\?"):
        camp.execute(C.EquipItem(character="gus", item="epee courte"))


# --------------------------------------------------------------------------- item 23: corrections

def correct(t, rec, **changes):
    """What 'cristal correct POS --set ...' appends after its correction.recorded: the ruleset's compensation."""
    ctx = t.context()
    return t.commit(t.ruleset.compensate(t.rules, rec, changes, ctx), ctx)


def test_a_mistyped_damage_die_is_corrected_by_a_visible_pv_change(camp):
    # L1359-L1361: Gustave ATT 8, d20 13 -> 21 > DP 18, [2d6+2] gives 8; typed "6,6" (14) by mistake
    camp.execute(F.StartCombat(combat="t", fighters=["gustave", "rodrigue"], its={"rodrigue": 10},
                               stats={"gustave": {"ATT": 8, "DMG": "2d6+2"}, "rodrigue": {"DP": 18, "PV": 20}}))
    rec = camp.execute(F.Attack(combat="t", actor="gustave", target="rodrigue"), faces=[13, 6, 6])[0]
    assert pv_of(camp, "rodrigue", "t") == 6
    fix = correct(camp, rec, damage=8)
    assert [type(r.event).__name__ for r in fix] == ["PvChanged"]
    assert fix[0].event.delta == 6 and "dommages 14 → 8" in fix[0].event.cause
    assert pv_of(camp, "rodrigue", "t") == 12
    # the d20 was a 3, not 13: 11 ≤ 18, a miss, and the 8 PV come back
    fix = correct(camp, rec, die=3)
    assert fix[0].event.delta == 8 and pv_of(camp, "rodrigue", "t") == 20
    with pytest.raises(RuleError, match="nothing to correct"):
        correct(camp, rec, die=3)


def test_a_pv_change_that_killed_by_mistake_is_corrected_and_the_fighter_acts_again(camp):
    # D8/L369-L373: a Humain (PV initiaux 12, CON 0) dies below -12; a damage typed 30 instead of 3
    camp.execute(C.CreateCharacter(id="thor", race="Humain"))
    camp.execute(F.StartCombat(combat="t", fighters=["thor", "york"], its={"york": 10},
                               stats={"york": {"ATT": 30, "DMG": "1d4"}}))
    camp.execute(F.TakeAction(combat="t", actor="thor", seconds=12))
    recs = camp.execute(F.Attack(combat="t", actor="york", target="thor"), faces=[1, 3])
    pv_rec = next(r for r in recs if isinstance(r.event, F.PvChanged))
    assert camp.state().rules.characters["thor"].pv == 9
    correct(camp, pv_rec, delta=-30)  # "it was 30 damage" - the other way round too
    assert camp.state().rules.characters["thor"].dead
    fix = correct(camp, pv_rec, delta=-3)
    assert [type(r.event).__name__ for r in fix] == ["PvChanged", "ConditionChanged"]
    assert camp.state().rules.characters["thor"].pv == 9 and not camp.state().rules.characters["thor"].dead
    camp.execute(F.EndCombat(combat="t"))
    fix = correct(camp, pv_rec, delta=-1)  # the fight has ended: the sheet is corrected
    assert type(fix[0].event).__name__ == "CharacterCorrected" and camp.state().rules.characters["thor"].pv == 11


def test_a_character_created_by_mistake_is_retired_visibly(camp):
    rec = camp.execute(C.CreateCharacter(id="thorr", race="Humain"))[0]
    fix = correct(camp, rec)
    assert type(fix[0].event).__name__ == "CharacterRetired" and "thorr" not in camp.state().rules.characters
    with i18n.use("fr"):  # the summary as the French log reads it
        assert "retiré" in camp.ruleset.summarize(fix[0])
    camp.execute(C.CreateCharacter(id="thorr", race="Humain"))  # the id may be used again
    with pytest.raises(RuleError, match="only by retiring it"):
        correct(camp, rec, race="Elfe")


# --------------------------------------------------------------------------- item 19

def test_a_voleur_ability_outside_a_fight_is_paid_from_the_days_vol(camp):
    # L664 "à tout moment au cours du jeu"; Voleur level 2: 6 Vol* a day (L710-L741);
    # Pickpocket (personne occupée) costs 2 and needs level 2; Serrure simple needs level 3
    camp.execute(C.CreateCharacter(id="taz", race="Humain"))
    camp.execute(C.AwardXp(characters=("taz",), amount=1000, reason="r"))
    camp.execute(C.BuyLevel(character="taz", class_name="Voleur", stat="DEX"))
    camp.execute(C.BuyLevel(character="taz", class_name="Voleur", stat="DEX"))
    ev = camp.execute(C.UseClassAbility(character="taz", ability="pickpocket (personne occupee)",
                                        target="york", reason="la bourse"))[0].event
    assert (ev.ability, ev.cost, ev.pool, ev.left) == ("Pickpocket (personne occupée)", 2, "Vol", 4)
    assert camp.state().rules.characters["taz"].pools_used == {"Vol": 2}
    with pytest.raises(RuleError, match="Serrure simple needs Voleur level 3 \\(has 2\\)"):
        camp.execute(C.UseClassAbility(character="taz", ability="Serrure simple"))
    camp.execute(C.UseClassAbility(character="taz", ability="Pickpocket (personne occupée)"))
    camp.execute(C.UseClassAbility(character="taz", ability="Pickpocket (personne occupée)"))
    with pytest.raises(RuleError, match="costs 2 Vol points; only 0 left today"):
        camp.execute(C.UseClassAbility(character="taz", ability="Pickpocket (personne occupée)"))
    camp.execute(F.StartCombat(combat="c", fighters=["taz", "york"], stats={"york": {"PV": 3}}))
    with pytest.raises(RuleError, match="use 'combat ability c taz"):
        camp.execute(C.UseClassAbility(character="taz", ability="Déplacement silencieux"))


# --------------------------------------------------------------------------- item 20

def test_an_unconscious_character_bleeds_outside_a_fight_until_death(camp):
    # L371: 1 PV a minute unaided; D8: a Humain (PV initiaux 12, CON 0) dies below -12
    camp.execute(C.CreateCharacter(id="thor", race="Humain"))
    camp.execute(C.Damage(character="thor", amount=13, reason="chute"))  # 12 - 13 = -1
    ev = camp.execute(C.Bleed(character="thor", minutes=5))[0].event
    assert (ev.amount, ev.pv_after, ev.dead) == (5, -6, False)
    ev = camp.execute(C.Bleed(character="thor", minutes=60))[0].event
    assert (ev.amount, ev.pv_after, ev.dead) == (7, -13, True)
    with pytest.raises(RuleError, match="dead"):
        camp.execute(C.Bleed(character="thor", minutes=1))


SERPENT = {"races": [{
    "name": "Serpent", "pv_initial": 4, "regen_pct": 10, "pm_initial": 0, "dp_initial": 8, "dm_initial": 0,
    "fixed": {s: 0 for s in ("FRC", "DEX", "INT", "MAG", "CON", "REF", "OBS", "MEM", "CHAR")}, "senses": {},
    "level_cost": 100,
    # L469: "pour refaire une dose de venin, un serpent à besoin de 3 heures"; L1263: the natural attack's IT
    "weapons": [{"kind": "Naturelle", "name": "Morsure", "description": "Crocs.", "dmg": "1d2", "it": 2},
                {"kind": "Naturelle", "name": "Venin", "description": "Morsure venimeuse.", "dmg": "2d6", "it": 3,
                 "recovery_s": 10800}]}]}


def test_a_races_natural_attack_it_and_the_venom_recovery(camp):
    camp.execute(C.LoadContentPack(name="serpents.json", data=SERPENT))
    camp.execute(F.StartCombat(combat="c", fighters=["naja", "rat"], its={"rat": 10**6},
                               stats={"naja": {"ATT": 5, "race": "Serpent"}, "rat": {"DP": 4, "PV": 40}}))
    ev = camp.execute(F.Attack(combat="c", actor="naja", target="rat"), faces=[10])[0].event
    assert ev.seconds == 2  # bare-handed, its race's first natural attack's IT (L1263), not 6
    ev = camp.execute(F.Attack(combat="c", actor="naja", target="rat", natural="venin"), faces=[10, 3, 4])[0].event
    assert (ev.natural, ev.dmg, ev.swings[0].damage, ev.seconds, ev.ready_at) == ("Venin", "2d6", 7, 3, 2 + 10800)
    with pytest.raises(RuleError, match="naja's Venin is recovering until IT 10802"):
        camp.execute(F.Attack(combat="c", actor="naja", target="rat", natural="Venin"), faces=[10, 3, 4])
    ev = camp.execute(F.Attack(combat="c", actor="naja", target="rat", natural="Morsure"), faces=[10, 1])[0].event
    assert ev.seconds == 2 and ev.swings[0].damage == 1
    camp.execute(F.TakeAction(combat="c", actor="naja", seconds=10800))  # three hours later
    camp.execute(F.Attack(combat="c", actor="naja", target="rat", natural="Venin"), faces=[10, 1, 1])


def test_an_unknown_character_or_fighter_gets_did_you_mean(camp):
    camp.execute(C.CreateCharacter(id="thor", race="Humain"))
    with pytest.raises(CristalError, match="Unknown character 'thorr'; Did you mean 'thor'\\? known characters: thor"):
        camp.execute(C.Damage(character="thorr", amount=1, reason="r"))
    camp.execute(F.StartCombat(combat="c", fighters=["thor", "york"], its={"york": 5}, stats={"york": {"PV": 5}}))
    with pytest.raises(CristalError, match="yrok is not in the combat 'c'. Did you mean 'york'\\?"):
        camp.execute(F.Attack(combat="c", actor="thor", target="yrok"), faces=[1])
