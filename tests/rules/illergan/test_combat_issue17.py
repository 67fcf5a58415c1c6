"""Issue 17, combat: critical riders (I-L504-510), blocks (I-L273, I-L547, I-L407, I-L439), defences each
turn (I-L542-543), thrown and ranged weapons (I-L95-99), lost arms and limbs (I-L318).

Thor: Fo 4, Adresse 60, FP 1 of rank 1 (d6 in the EXAMPLE pack): a blow does 4 × 10 + d6 (I-L274).
"""

from __future__ import annotations

import msgspec
import pytest
from harness import Table
from helpers import refused

from cristal_events.errors import UnknownEntity
from cristal_events.rulesets.illergan import fights as F
from cristal_events.rulesets.illergan import heroes as H
from cristal_events.rulesets.illergan import trials as R
from cristal_events.rulesets.illergan.character import Choices
from cristal_events.rulesets.illergan.content import example_pack
from cristal_events.rulesets.illergan.locations import Body

THOR = dict(Fo=4, Dex=50, Vit=60, Vol=40, Mana=10, E=8, Cha=30, Sav=30, Dep=5, Agilité=40, Adresse=60)
LYSA = dict(Fo=2, Dex=45, Vit=40, Vol=55, Mana=60, E=12, Cha=35, Sav=50, Dep=5, Agilité=50, Adresse=40)
GOB = dict(Fo=2, Dex=20, Vol=10, Vit=20, Adresse=45)
ECU = "Écu d'écorce clouée"  # EXAMPLE pack: SR 8, SRM 10, PS 25


def table(**settings):
    c = Table(name="Riders", ruleset="illergan", seed=5, settings=settings)
    c.execute(H.LoadPack(name="example", data=msgspec.to_builtins(example_pack())))
    c.execute(H.CreateHero(character="thor", choices=Choices(name="Thor", race="Humain", class_name="Guerrier",
                                                             heritage="Enfant des rues", skills=("Blocage",)),
                           characteristics=THOR, pv=40, pm=0, rn=10, gift_face=3))
    c.execute(H.CreateHero(character="lysa", choices=Choices(name="Lysa", race="Elfe", class_name="Mage",
                                                             heritage="Apprenti d'académie", magics=("Yarlysy",),
                                                             skills=("Blocage",)),
                           characteristics=LYSA, pv=30, pm=60, rn=0, gift_face=5,
                           spells=("Embrasement",)))  # learned spells only (I-L17)
    c.execute(H.CreateCreature(character="gob", name="Gobelin", characteristics=GOB, pv=200))
    c.execute(F.StartFight(fight="gue", participants=("thor", "lysa", "gob")))
    c.execute(F.RollInitiative(fight="gue"), faces=[50, 50, 50])
    return c


@pytest.fixture
def camp():
    return table()


def hero(camp, who):
    return camp.state().rules.characters[who]


def attack(who="thor", target="gob", **kw):
    return F.Attack(fight="gue", attacker=who, target=target, **kw)


def initiative(camp):
    return camp.execute(F.RollInitiative(fight="gue"), faces=[50, 50, 50])


def rolled(recs):
    return next(r.event for r in recs if isinstance(r.event, F.InitiativeRolled))


def gob_entry(recs):
    rolled = next(r.event for r in recs if isinstance(r.event, F.InitiativeRolled))
    return next(e for e in rolled.entries if e.character == "gob")


# ------------------------------------------------------------------ item 2: critical riders (I-L504-510)
def test_hemorragie_takes_fo_pv_a_turn_for_three_turns(camp):
    camp.execute(H.Carry(character="thor", item="Stylet", qty=1))  # equip takes what is carried (I-L47-48)
    camp.execute(H.Equip(character="thor", slot="weapon", item="Stylet"))  # perforant
    ev = camp.execute(attack(), faces=[1, 50, 3])[0].event  # 01: critical, reroll 50: tronc, d6 3
    assert (ev.critical, ev.zone, ev.damage, ev.pv_after, ev.rider.name) == (True, "tronc", 43, 157, "Hémorragie")
    pv = []
    for _ in range(4):  # I-L507: −[Fo(attaquant)] = −4 PV per turn for 3 turns, then nothing
        recs = initiative(camp)
        ticks = [r.event for r in recs if isinstance(r.event, F.AfflictionTicked)]
        pv.append((hero(camp, "gob").pv, [t.pv_lost for t in ticks]))
    assert pv == [(153, [4]), (149, [4]), (145, [4]), (145, [])]
    assert hero(camp, "gob").afflictions == ()


def test_hemorragie_ticks_when_the_initiative_is_kept():
    # given: initiative_reroll_each_turn=false (A1): from turn 2 the order is kept, no die is rolled
    c = table(initiative_reroll_each_turn=False)
    c.execute(H.Carry(character="thor", item="Stylet", qty=1))  # equip takes what is carried (I-L47-48)
    c.execute(H.Equip(character="thor", slot="weapon", item="Stylet"))
    c.execute(attack(), faces=[1, 50, 3])  # critical, tronc: Hémorragie −4 PV a turn (I-L507)
    recs = c.execute(F.RollInitiative(fight="gue"))
    tick, kept = recs[0].event, recs[1].event
    assert (tick.pv_lost, tick.pv_after, kept.kept, kept.turn) == (4, 153, True, 2)  # the rider still runs
    refused(c, F.RollInitiative(fight="gue", unspotted_by={"thor": ["gob"]}),
            "The initiative is kept from the first turn (initiative_reroll_each_turn=false); stealth gives no new "
            "order (I-L8, A1).")


def test_hemorragie_left_when_the_fight_ends_is_lost_at_once(camp):
    camp.execute(H.Carry(character="thor", item="Stylet", qty=1))  # equip takes what is carried (I-L47-48)
    camp.execute(H.Equip(character="thor", slot="weapon", item="Stylet"))
    camp.execute(attack(), faces=[1, 50, 3])
    initiative(camp)  # one tick: 153
    recs = camp.execute(F.EndFight(fight="gue"))
    tick = recs[0].event
    assert (tick.turns, tick.pv_lost, tick.pv_after, hero(camp, "gob").pv) == (2, 8, 145, 145)


def test_hemorragie_dropped_with_the_fight_under_the_setting():
    c = table(riders_at_fight_end="drop")
    c.execute(H.Carry(character="thor", item="Stylet", qty=1))  # equip takes what is carried (I-L47-48)
    c.execute(H.Equip(character="thor", slot="weapon", item="Stylet"))
    c.execute(attack(), faces=[1, 50, 3])
    recs = c.execute(F.EndFight(fight="gue"))
    assert [type(r.event).__name__ for r in recs] == ["FightEnded"]
    assert hero(c, "gob").pv == 157


def test_handicap_takes_2fo_dex_for_three_turns(camp):
    camp.execute(H.Carry(character="thor", item="Épée longue", qty=1))  # equip takes what is carried (I-L47-48)
    camp.execute(H.Equip(character="thor", slot="weapon", item="Épée longue"))  # tranchant
    ev = camp.execute(attack(hands=2), faces=[2, 50, 5])[0].event
    assert (ev.rider.name, ev.rider.dex_malus, ev.pv_after) == ("Handicap", 8, 155)  # I-L509: −[2 × 4] Dex
    for _turn in (2, 3, 4):
        entry = gob_entry(initiative(camp))
        assert entry.dex == 12  # 20 − 8 at the initiative (I-L3)
        hit = camp.execute(attack("gob", "thor", weapon=""), faces=[90])[0].event
        assert (hit.adresse, hit.dex_maluses) == (37, [-8])  # 45 − 8: the Dex malus comes off the Adresse (A15)
    entry = gob_entry(initiative(camp))
    assert entry.dex == 20
    assert camp.execute(attack("gob", "thor", weapon=""), faces=[90])[0].event.adresse == 45


def test_a_critical_gives_minus_40_to_the_physical_defence(camp):
    # the goblin's 01 on Thor: his dodge at 60% is rolled against 20 (I-L504); 30 fails
    ev = camp.execute(attack("gob", "thor", weapon="", defence="esquive", defence_pct=60), faces=[1, 50, 30])[0].event
    assert (ev.critical, ev.defence_threshold, ev.defended) == (True, 20, False)
    assert (ev.damage, ev.pv_lost, ev.pv_after) == (11, 10, 30)  # 2 × 5 + 1, RN 10 % rounded up (I-L281)
    initiative(camp)
    ev = camp.execute(attack("gob", "thor", weapon="", defence="esquive", defence_pct=60), faces=[10, 30])[0].event
    assert (ev.critical, ev.defence_threshold, ev.defended, ev.pv_lost) == (False, 60, True, 0)


def test_a_critical_refuses_a_defence_given_as_succeeded(camp):
    refused(camp, attack("gob", "thor", weapon="", defence="parade", defended=True),
            "A critical gives −40 to physical defences (I-L504): give the defender's --defence-pct so the engine "
            "rolls the defence.", faces=[1, 50])


# ------------------------------------------------------------------ item 3 and 16: blocks and shields
def test_a_block_needs_the_skill_and_a_shield(camp):
    refused(camp, attack("gob", "thor", weapon="", defence="blocage", defended=True),
            "Thor cannot block: a block needs a shield (I-L547).", faces=[10])
    camp.execute(H.CreateCreature(character="orc", name="Orc", characteristics=GOB, pv=50))
    camp.execute(F.EndFight(fight="gue"))
    camp.execute(F.StartFight(fight="gue", participants=("thor", "orc")))
    refused(camp, attack("thor", "orc", weapon="", defence="blocage", defended=True),
            "Orc cannot block: a block needs the Blocage skill (I-L547).", faces=[10])


def test_a_successful_block_still_deals_damage_through_the_shield(camp):
    camp.execute(H.Carry(character="thor", item=ECU, qty=1))  # equip takes what is carried (I-L47-48)
    camp.execute(H.Equip(character="thor", slot="shield", item=ECU))
    # I-L273: the block succeeded, the damage is computed: 2 × 5 + 1 = 11 − SR 8 = 3 off the PS 25 (A13)
    ev = camp.execute(attack("gob", "thor", weapon="", defence="blocage", defended=True), faces=[30])[0].event
    assert (ev.defended, ev.damage, ev.shield_sr, ev.shield_ps_lost, ev.shield_ps_after, ev.pv_lost) == (
        True, 11, 8, 3, 22, 0)
    assert hero(camp, "thor").shield_ps == 22  # the shield keeps its PS (I-L407)
    initiative(camp)
    ev = camp.execute(attack("gob", "thor", weapon="", defence="blocage", defended=True), faces=[30])[0].event
    assert (ev.shield_ps_lost, ev.shield_ps_after) == (3, 19)


def test_a_shield_broken_by_a_block_passes_the_rest_to_the_character(camp):
    camp.execute(H.Carry(character="thor", item="Épée longue", qty=1))  # equip takes what is carried (I-L47-48)
    camp.execute(H.Equip(character="thor", slot="weapon", item="Épée longue"))
    camp.execute(H.Carry(character="lysa", item=ECU, qty=1))  # equip takes what is carried (I-L47-48)
    camp.execute(H.Equip(character="lysa", slot="shield", item=ECU))
    # 4 × 10 + 5 = 45 − SR 8 = 37: the 25 PS go, 12 reach Lysa's left leg (RN 0)
    ev = camp.execute(attack("thor", "lysa", hands=2, defence="blocage", defended=True), faces=[30, 5])[0].event
    assert (ev.zone, ev.damage, ev.shield_ps_lost, ev.shield_destroyed, ev.pv_lost, ev.pv_after) == (
        "jambe gauche", 45, 25, True, 12, 18)
    assert (hero(camp, "lysa").shield, hero(camp, "lysa").shield_ps) == (None, None)


def test_block_damage_shield_sr_keeps_the_shield_whole():
    c = table(block_damage="shield_sr")
    c.execute(H.Carry(character="thor", item="Épée longue", qty=1))  # equip takes what is carried (I-L47-48)
    c.execute(H.Equip(character="thor", slot="weapon", item="Épée longue"))
    c.execute(H.Carry(character="lysa", item=ECU, qty=1))  # equip takes what is carried (I-L47-48)
    c.execute(H.Equip(character="lysa", slot="shield", item=ECU))
    ev = c.execute(attack("thor", "lysa", hands=2, defence="blocage", defended=True), faces=[30, 5])[0].event
    # 45 − 8 = 37 reach the leg: more than Lysa's 30 PV, she keeps 0 PV and loses it (I-L318)
    assert (ev.shield_ps_lost, ev.shield_destroyed, ev.pv_lost, ev.limb_lost) == (0, False, 30, "jambe gauche")
    assert c.state().rules.characters["lysa"].shield_ps == 25


def test_a_parry_still_cancels_the_damage(camp):
    ev = camp.execute(attack("gob", "thor", weapon="", defence="parade", defended=True), faces=[50])[0].event
    assert (ev.defended, ev.pv_lost, ev.damage) == (True, 0, 0)


# ------------------------------------------------------------------ item 5: thrown and ranged weapons (I-L95-99)
def test_a_thrown_melee_weapon_gets_minus_40(camp):
    camp.execute(H.Carry(character="thor", item="Stylet", qty=1))  # equip takes what is carried (I-L47-48)
    camp.execute(H.Equip(character="thor", slot="weapon", item="Stylet"))
    ev = camp.execute(attack(thrown=True, distance=4), faces=[90])[0].event
    assert (ev.adresse, ev.dex_maluses) == (20, [-40])  # 60 − 40 (I-L99)
    initiative(camp)
    ev = camp.execute(attack(thrown=True, distance=8), faces=[90])[0].event  # beyond the optimal 5 m: −20 more
    assert (ev.adresse, ev.dex_maluses) == (0, [-60])
    initiative(camp)
    refused(camp, attack(thrown=True, distance=11), "Thor: A shot at 11 m is impossible: the range is 1.0 to 10.0 m "
            "(I-L95-97).", faces=[90])
    refused(camp, attack(distance=4), "Thor: Stylet has no range: throw it (--thrown, −40 Dex, I-L99) or strike "
            "in melee.", faces=[90])


def test_a_ranged_weapon_needs_the_distance(camp):
    camp.execute(H.Carry(character="thor", item="Arc court", qty=1))  # equip takes what is carried (I-L47-48)
    camp.execute(H.Equip(character="thor", slot="weapon", item="Arc court"))
    refused(camp, attack(hands=2), "Thor: Arc court shoots: give the distance to the target (--distance, I-L95-97).",
            faces=[50])
    ev = camp.execute(attack(hands=2, distance=40), faces=[90])[0].event
    assert ev.dex_maluses == [-20]  # beyond the optimal 30 m (I-L96)
    initiative(camp)
    refused(camp, attack(hands=2, distance=1), "Thor: A shot at 1 m is impossible: the range is 2.0 to 60.0 m "
            "(I-L95-97).", faces=[50])
    refused(camp, attack(hands=2, thrown=True, distance=5), "Thor: Arc court is a ranged weapon: it is shot, not "
            "thrown (I-L99).", faces=[50])


# ------------------------------------------------------------------ item 6: lost arms and limbs (I-L318)
def test_a_lost_limb_cannot_be_lost_again_and_one_arm_holds_no_two_handed_grip():
    c = table()
    c.execute(H.CreateCreature(character="troll", name="Troll", characteristics=dict(GOB, Fo=40), pv=500))
    c.execute(F.EndFight(fight="gue"))
    c.execute(F.StartFight(fight="gue", participants=("thor", "troll")))
    # 40 × 5 + 1 = 201 on the left arm (01-10): Thor survives at 0 PV and loses the arm (I-L318)
    ev = c.execute(F.Attack(fight="gue", attacker="troll", target="thor", weapon=""), faces=[5])[0].event
    assert (ev.zone, ev.damage, ev.pv_lost, ev.pv_after, ev.limb_lost) == ("bras gauche", 201, 40, 0, "bras gauche")
    c.execute(H.Carry(character="thor", item="Hache à deux mains", qty=1))  # equip takes what is carried (I-L47-48)
    c.execute(H.Equip(character="thor", slot="weapon", item="Hache à deux mains"))
    refused(c, F.Attack(fight="gue", attacker="thor", target="troll", hands=2),
            "Thor: Only 1 arm is left: the weapon cannot be held in 2 hands (I-L318).", faces=[50])
    # one-handed, the two-handed axe in the right (preferred) hand: −40 (I-L88)
    assert c.execute(F.Attack(fight="gue", attacker="thor", target="troll"), faces=[90])[0].event.dex_maluses == [-40]
    c.execute(F.RollInitiative(fight="gue"), faces=[50, 50])
    # a second hit on the lost left arm goes to the trunk (I-L318, by I-L634): at 0 PV Thor dies there
    ev = c.execute(F.Attack(fight="gue", attacker="troll", target="thor", weapon=""), faces=[7])[0].event
    assert (ev.redirected_from, ev.zone, ev.limb_lost, ev.dead) == ("bras gauche", "tronc", "", True)
    assert c.state().rules.characters["thor"].limbs_lost == ("bras gauche",)


def test_both_arms_lost_hold_no_weapon():
    c = table(lost_limb_hit="none")
    c.execute(H.CreateCreature(character="troll", name="Troll", characteristics=dict(GOB, Fo=4), pv=500))
    c.execute(F.EndFight(fight="gue"))
    c.execute(F.StartFight(fight="gue", participants=("lysa", "troll")))
    hits = []
    for face in (5, 15, 5):  # 4 × 5 + 1 = 21 each: left arm 30 → 9, right arm lost, left arm lost
        hits.append(c.execute(F.Attack(fight="gue", attacker="troll", target="lysa", weapon=""), faces=[face])[0].event)
        c.execute(F.RollInitiative(fight="gue"), faces=[50, 50])
    assert [(h.pv_after, h.limb_lost) for h in hits] == [(9, ""), (0, "bras droit"), (0, "bras gauche")]
    # lost_limb_hit=none: a fourth hit on a lost arm touches nothing
    ev = c.execute(F.Attack(fight="gue", attacker="troll", target="lysa", weapon=""), faces=[12])[0].event
    assert (ev.redirected_from, ev.zone, ev.pv_lost, c.state().rules.characters["lysa"].dead) == (
        "bras droit", "aucune", 0, False)
    c.execute(H.Carry(character="lysa", item="Stylet", qty=1))  # equip takes what is carried (I-L47-48)
    c.execute(H.Equip(character="lysa", slot="weapon", item="Stylet"))
    refused(c, F.Attack(fight="gue", attacker="lysa", target="troll"),
            "Lysa: Both arms are lost: no weapon can be wielded (I-L318).", faces=[50])
    c.execute(F.Attack(fight="gue", attacker="lysa", target="troll", weapon=""), faces=[90])  # a kick is still possible


# ------------------------------------------------------------------ item 20: stealth initiative (I-L8)
def test_an_unspotted_attacker_goes_before_those_who_did_not_spot_him(camp):
    # Thor 50 + 40 + 1 = 91, Lysa 45 + 55 + 50 = 150, the goblin 20 + 10 + 90 = 120
    ev = rolled(camp.execute(F.RollInitiative(fight="gue"), faces=[1, 50, 90]))
    assert ev.order == ["lysa", "gob", "thor"]
    ev = rolled(camp.execute(F.RollInitiative(fight="gue", unspotted_by={"thor": ("gob",)}), faces=[1, 50, 90]))
    assert (ev.order, ev.unspotted_by) == (["lysa", "thor", "gob"], {"thor": ["gob"]})  # he wins against the goblin
    refused(camp, F.RollInitiative(fight="gue", unspotted_by={"thor": ("thor",)}),
            "thor cannot be unspotted by himself (I-L8).", faces=[1, 50, 90])


def test_stealth_ignores_le50_rule_lets_the_unspotted_attacker_act():
    c = table(stealth_ignores_le50_rule=True)
    ev = rolled(c.execute(F.RollInitiative(fight="gue", unspotted_by={"gob": ("thor",)}), faces=[50, 50, 1]))
    gob = next(e for e in ev.entries if e.character == "gob")
    assert (gob.score, gob.acts, ev.order.index("gob") < ev.order.index("thor")) == (31, True, True)  # A2
    c2 = table()
    ev = rolled(c2.execute(F.RollInitiative(fight="gue", unspotted_by={"gob": ("thor",)}), faces=[50, 50, 1]))
    assert next(e for e in ev.entries if e.character == "gob").acts is False  # 31: 50 or less (I-L7)


# ------------------------------------------------------------------ item 17: creatures
def test_knock_down_is_limited_by_vitalite(camp):
    # I-L416: Lysa (Vit 40) cannot knock down a biped of more than 160 Vit, nor a quadruped of more than 40
    camp.execute(H.CreateCreature(character="ogre", name="Ogre", characteristics=dict(GOB, Vit=161), pv=100))
    loup = Body(anterior_left=1, anterior_right=1, posterior_left=1, posterior_right=1, tails=1)
    camp.execute(H.CreateCreature(character="loup", name="Loup", characteristics=dict(GOB, Vit=41), pv=40, body=loup))
    camp.execute(H.CreateCreature(character="petit", name="Petit", characteristics=dict(GOB, Vit=160), pv=40))
    camp.execute(F.EndFight(fight="gue"))
    camp.execute(F.StartFight(fight="gue", participants=("lysa", "ogre", "loup", "petit")))
    refused(camp, F.TakeAction(fight="gue", character="ogre", action="knocked_down", by="lysa"),
            "A biped with 161 Vit cannot be knocked down by a physical action of 40 Vit: more than 4 × 40 (I-L416).")
    refused(camp, F.TakeAction(fight="gue", character="loup", action="knocked_down", by="lysa"),
            "A creature on four legs or more with 41 Vit cannot be knocked down by a physical action of 40 Vit (I-L416).")
    ev = camp.execute(F.TakeAction(fight="gue", character="petit", action="knocked_down", by="lysa"))[0].event
    assert (ev.by, ev.turn_after.budget.major) == ("lysa", 0)  # 160 = 4 × 40: he loses his major action


def test_natural_weapons_cycle_with_a_fixed_number_of_attacks():
    c = table()
    c.execute(H.CreateCreature(character="ours", name="Ours", characteristics=dict(GOB, Fo=3, Adresse=50), pv=90,
                               natural_weapons=("Griffes", "Crocs"), attacks_per_turn=3))
    c.execute(F.EndFight(fight="gue"))
    c.execute(F.StartFight(fight="gue", participants=("thor", "ours")))
    bite = F.Attack(fight="gue", attacker="ours", target="thor", weapon="Crocs")
    first = c.execute(F.Attack(fight="gue", attacker="ours", target="thor"), faces=[90])[0].event
    assert (first.weapon, first.turn_after.budget.major, first.turn_after.attacks) == ("Griffes", 0, 1)
    refused(c, F.Attack(fight="gue", attacker="ours", target="thor", weapon="Griffes"),
            "Ours must use a different natural weapon at each attack: Crocs before Griffes again (I-L449).", faces=[90])
    assert c.execute(bite, faces=[90])[0].event.weapon == "Crocs"  # same major action (I-L447, I-L452)
    third = c.execute(F.Attack(fight="gue", attacker="ours", target="thor"), faces=[90])[0].event
    assert (third.weapon, third.turn_after.attacks) == ("Griffes", 3)  # the cycle starts again (I-L449)
    refused(c, bite, "Ours has made its 3 attack(s) this turn (I-L447).", faces=[90])
    refused(c, F.Attack(fight="gue", attacker="ours", target="thor", action="extra_major"),
            "Ours has a fixed number of attacks and one major action a turn (I-L447, I-L452).", faces=[90])
    c.execute(F.RollInitiative(fight="gue"), faces=[50, 50])
    assert c.execute(bite, faces=[90])[0].event.turn_after.attacks == 1


def test_a_plant_takes_no_rider_and_no_knock_down():
    c = table()
    c.execute(H.CreateCreature(character="liane", name="Liane", characteristics=GOB, pv=200, family="végétal"))
    c.execute(F.EndFight(fight="gue"))
    c.execute(F.StartFight(fight="gue", participants=("thor", "liane")))
    c.execute(H.Carry(character="thor", item="Stylet", qty=1))  # equip takes what is carried (I-L47-48)
    c.execute(H.Equip(character="thor", slot="weapon", item="Stylet"))
    ev = c.execute(F.Attack(fight="gue", attacker="thor", target="liane"), faces=[1, 50, 3])[0].event
    assert (ev.critical, ev.pv_lost, ev.rider, c.state().rules.characters["liane"].afflictions) == (True, 43, None, ())
    refused(c, F.TakeAction(fight="gue", character="liane", action="knocked_down", by="thor"),
            "Liane is a plant: physical alterations do not work on it (I-L628).")


# ------------------------------------------------------------------ item 16: the magic block (I-L437-439)
def test_a_magic_block_takes_the_srm_then_the_shield_ps_then_volonte(camp):
    camp.execute(H.Carry(character="thor", item=ECU, qty=1))  # equip takes what is carried (I-L47-48)
    camp.execute(H.Equip(character="thor", slot="shield", item=ECU))
    cast = dict(caster="lysa", spell="Embrasement", cast_level=1, fight="gue", target="thor", blocked=True)
    refused(camp, F.CastSpell(damage=40, **{**cast, "target": "gob"}),
            "Gobelin cannot block: a block needs the Blocage skill and a shield (I-L547).", faces=[50])
    ev = camp.execute(F.CastSpell(damage=20, **cast), faces=[50])[0].event
    assert (ev.shield_ps_lost, ev.shield_ps_after, ev.pv_lost) == (10, 15, 0)  # 20 − SRM 10 = 10 off PS 25
    assert camp.state().rules.fights["gue"].turns["thor"].defences.block == 0  # the block of the turn (I-L543)
    camp.execute(F.RollInitiative(fight="gue"), faces=[50, 50, 50])
    # 40 − 10 = 30 on 15 PS: the shield is destroyed, 15 go to Thor, − Vol 40 % = 9 (I-L437, I-L439)
    ev = camp.execute(F.CastSpell(damage=40, **cast), faces=[50])[0].event
    assert (ev.shield_destroyed, ev.pv_lost, ev.pv_after) == (True, 9, 31)
    assert hero(camp, "thor").shield is None


# ------------------------------------------------------------------ item 20: movement (I-L258-263, I-L428)
def test_dep_before_the_attack_and_vertical_metres_spilling_into_the_next_turn(camp):
    ev = camp.execute(F.Move(fight="gue", character="thor", metres=3))[0].event  # Dep 5
    assert (ev.mode, ev.available_m, ev.left_m) == ("dep", 5, 2)
    ev = camp.execute(F.Move(fight="gue", character="thor", vertical_m=4))[0].event  # climbing 4 m with 2 left
    assert (ev.left_m, ev.owed_m) == (0, 2)  # I-L428: the 2 m more go on the next turn
    refused(camp, F.Move(fight="gue", character="thor", metres=1), "Thor has 0 m of movement left this turn, not 1 "
            "(I-L258-260).")
    initiative(camp)
    ev = camp.execute(F.Move(fight="gue", character="thor", metres=1))[0].event
    assert (ev.available_m, ev.left_m) == (3, 2)  # 5 − the 2 m owed
    camp.execute(attack(weapon=""), faces=[90])
    refused(camp, F.Move(fight="gue", character="thor", metres=1), "Thor has used his major action: the Dep comes "
            "before the attack, never between two attacks (I-L260-263).")


def test_sprint_is_the_major_action(camp):
    ev = camp.execute(F.Move(fight="gue", character="thor", metres=10, sprint=15))[0].event
    assert (ev.mode, ev.available_m, ev.left_m, ev.turn_after.budget.major) == ("sprint", 15, 5, 0)
    assert camp.execute(F.Move(fight="gue", character="thor", metres=5))[0].event.left_m == 0
    refused(camp, attack(weapon=""), "Thor: No major action is left this turn (I-L241).", faces=[90])


# ------------------------------------------------------------------ item 17: flight (I-L556-566)
def test_take_off_doubles_the_movement_left_and_flight_doubles_the_dep():
    c = table()
    wings = Body(posterior_left=1, posterior_right=1, wings_left=1, wings_right=1)
    c.execute(H.CreateCreature(character="aigle", name="Aigle", characteristics=dict(GOB, Dex=40, Dep=10), pv=30,
                               body=wings))
    c.execute(F.EndFight(fight="gue"))
    c.execute(F.StartFight(fight="gue", participants=("thor", "aigle")))
    refused(c, F.Fly(fight="gue", character="thor"), "Thor has no wings: name what lets him fly (I-L556).")
    c.execute(F.Move(fight="gue", character="aigle", metres=6))
    ev = c.execute(F.Fly(fight="gue", character="aigle"), faces=[30])[0].event  # 30 ≤ Dex 40
    assert (ev.success, ev.left_before_m, ev.left_after_m, ev.turn_after.budget.minor) == (True, 4, 8, 0)  # FLY-2
    assert c.execute(F.Move(fight="gue", character="aigle", metres=8))[0].event.left_m == 0
    c.execute(F.RollInitiative(fight="gue"), faces=[50, 50])
    assert c.execute(F.Move(fight="gue", character="aigle", metres=1))[0].event.available_m == 20  # FLY-1: 2 × Dep
    c.execute(F.Fly(fight="gue", character="aigle", land=True))
    refused(c, F.Fly(fight="gue", character="aigle", land=True), "Aigle is not flying.")


def test_a_failed_take_off_still_costs_the_minor_action():
    c = table()
    c.execute(H.CreateCreature(character="aigle", name="Aigle", characteristics=dict(GOB, Dex=40, Dep=10), pv=30,
                               body=Body(wings_left=1, wings_right=1)))
    c.execute(F.EndFight(fight="gue"))
    c.execute(F.StartFight(fight="gue", participants=("thor", "aigle")))
    ev = c.execute(F.Fly(fight="gue", character="aigle"), faces=[41])[0].event
    assert (ev.success, ev.left_after_m, ev.turn_after.budget.minor) == (False, 10, 0)
    assert "en vol" not in c.state().rules.characters["aigle"].conditions


# ------------------------------------------------------------------ item 20: one attack on several targets (I-L292)
def test_one_attack_on_several_targets_same_damage_and_zone_each_its_own_defence(camp):
    camp.execute(H.Carry(character="thor", item="Hache à deux mains", qty=1))  # equip takes what is carried (I-L47-48)
    camp.execute(H.Equip(character="thor", slot="weapon", item="Hache à deux mains"))  # FP 1 + 1: two d6
    lysa = F.OtherTarget(target="lysa", defence="esquive", defence_pct=60)
    refused(camp, attack(hands=2, defender="lysa", defence="parade", defended=True, others=(lysa,)),
            "A target cannot act in defence for another target of the same attack (I-L292).", faces=[50])
    recs = camp.execute(attack(hands=2, others=(lysa,)), faces=[50, 70, 3, 4])  # Lysa's dodge: 70 > 60, fails
    gob, ly = [r.event for r in recs if isinstance(r.event, F.AttackResolved)]
    assert (gob.zone, gob.damage, gob.pv_after) == ("tronc", 47, 153)  # 4 × 10 + 3 + 4
    assert (ly.zone, ly.damage, ly.same_attack_as, ly.pv_lost, ly.dead) == ("tronc", 47, "gob", 47, True)
    assert ly.turn_after is None and gob.turn_after.budget.major == 0  # one major action for both (I-L292)


def test_a_target_of_a_several_target_attack_that_defends_takes_nothing(camp):
    camp.execute(H.Carry(character="thor", item="Hache à deux mains", qty=1))  # equip takes what is carried (I-L47-48)
    camp.execute(H.Equip(character="thor", slot="weapon", item="Hache à deux mains"))
    recs = camp.execute(attack(hands=2, defence="parade", defended=True,
                               others=(F.OtherTarget(target="lysa"),)), faces=[45, 3, 4])
    gob, ly = [r.event for r in recs if isinstance(r.event, F.AttackResolved)]
    assert (gob.defended, gob.pv_lost, ly.zone, ly.damage, ly.pv_after) == (True, 0, "tronc", 47, -17)  # RN 0


# ------------------------------------------------------------------ item 20: a temporary skill unlock (I-L490)
def test_a_bonus_to_a_skill_not_on_the_sheet_unlocks_it_at_0(camp):
    refused(camp, R.RollCheck(character="thor", what="Parade"), "Thor has no skill or characteristic 'Parade'.",
            exc=UnknownEntity, faces=[10])
    ev = camp.execute(R.RollCheck(character="thor", what="Parade", bonus=20), faces=[15])[0].event
    assert (ev.threshold, ev.success, ev.unlocked, ev.bonus) == (20, True, True, 20)  # 0% + 20
    assert "Parade" not in hero(camp, "thor").skills  # only the time of the bonus
    ev = camp.execute(R.RollCheck(character="thor", what="Escalade", bonus=20), faces=[25])[0].event
    assert (ev.threshold, ev.success, ev.unlocked) == (20, False, False)  # on the sheet at 0%: + 20


# ------------------------------------------------------------------ item 17: désarmement and poison (I-L414-415)
def test_a_disarmed_character_picks_his_weapon_up_with_a_minor_action(camp):
    camp.execute(H.Carry(character="thor", item="Épée longue", qty=1))  # equip takes what is carried (I-L47-48)
    camp.execute(H.Equip(character="thor", slot="weapon", item="Épée longue"))
    camp.execute(F.TakeAction(fight="gue", character="thor", action="disarmed", what="botte de désarmement"))
    assert (hero(camp, "thor").weapon, hero(camp, "thor").dropped_weapon) == (None, "Épée longue")
    assert camp.execute(attack(), faces=[90])[0].event.weapon == ""  # bare hands until he picks it up
    ev = camp.execute(F.TakeAction(fight="gue", character="thor", action="pick_up"))[0].event
    assert (ev.turn_after.budget.minor, hero(camp, "thor").weapon) == (0, "Épée longue")  # I-L414
    refused(camp, F.TakeAction(fight="gue", character="thor", action="pick_up"),
            "Thor has no weapon on the ground to pick up (I-L414).")


def test_poisons_are_irreducible_and_add_up(camp):
    # Thor has RN 10: a poison ignores it (I-L415); two poisons add up over their common turns
    camp.execute(F.ApplyPoison(fight="gue", character="thor", poison="Venin", pv_per_turn=5, turns=2))
    camp.execute(F.ApplyPoison(fight="gue", character="thor", poison="Ciguë", pv_per_turn=3, turns=3))
    pv = []
    for _ in range(4):
        initiative(camp)
        pv.append(hero(camp, "thor").pv)
    assert pv == [32, 24, 21, 21]  # 40 − 8, − 8, − 3, then nothing
    c = table()
    c.execute(H.CreateCreature(character="liane", name="Liane", characteristics=GOB, pv=20, family="végétal"))
    c.execute(F.EndFight(fight="gue"))
    c.execute(F.StartFight(fight="gue", participants=("thor", "liane")))
    refused(c, F.ApplyPoison(fight="gue", character="liane", poison="Venin", pv_per_turn=5, turns=2),
            "Liane is a plant: poisons and venoms do not work on it (I-L628).")


# ------------------------------------------------------------------ item 16: breakable objects (I-L407-409)
def test_an_object_loses_damage_minus_sr_off_its_ps(camp):
    camp.execute(H.Carry(character="thor", item="Épée longue", qty=1))  # equip takes what is carried (I-L47-48)
    camp.execute(H.Equip(character="thor", slot="weapon", item="Épée longue"))
    ev = camp.execute(R.StrikeObject(character="thor", what="porte", ps=30, sr=20), faces=[4])[0].event
    assert (ev.damage, ev.ps_lost, ev.ps_after, ev.broken) == (44, 24, 6, False)  # 4 × 10 + 4 − SR 20
    ev = camp.execute(R.StrikeObject(character="thor", what="porte", ps=6, sr=20), faces=[1])[0].event
    assert (ev.ps_lost, ev.ps_after, ev.broken) == (6, 0, True)
    ev = camp.execute(R.StrikeObject(character="thor", what="mur", ps=100, sr=60, weapon=""))[0].event
    assert (ev.damage, ev.ps_lost) == (21, 0)  # bare hands 4 × 5 + 1 does not go through SR 60


def test_an_elemental_counts_its_spells_among_its_attacks():
    from cristal_events.ruleset import Emit
    from cristal_events.rulesets.illergan.state import Hero, MagicEntry, stream_of
    c = table()
    # given: a fire elemental of the game master with two attacks a turn, spells included (I-L529)
    ifrit = Hero(id="ifrit", name="Ifrit", kind="creature", characteristics=dict(GOB, Mana=50), pv=60, pv_max=60,
                 pm=100, pm_max=100, family="élémentaire", attacks_per_turn=2,
                 magics={"Yarlysy": MagicEntry(level=3, pp=0)}, spells=("Embrasement",))  # learned (I-L17)
    c.apply(Emit(stream_of("ifrit"), H.CreatureCreated(character="ifrit", character_data=ifrit)))
    c.execute(F.EndFight(fight="gue"))
    c.execute(F.StartFight(fight="gue", participants=("thor", "ifrit")))
    ev = c.execute(F.CastSpell(caster="ifrit", spell="Embrasement", cast_level=1, fight="gue"), faces=[50])[0].event
    assert (ev.turn_after.attacks, ev.turn_after.budget.major) == (1, 0)  # I-L529: the spell is its first attack
    ev = c.execute(F.Attack(fight="gue", attacker="ifrit", target="thor", weapon=""), faces=[90])[0].event
    assert ev.turn_after.attacks == 2
    refused(c, F.CastSpell(caster="ifrit", spell="Embrasement", cast_level=1, fight="gue"),
            "Ifrit has made its 2 attack(s) this turn (I-L447).", faces=[50])


def test_u_turns_and_passengers_in_flight():
    c = table()
    c.execute(H.CreateCreature(character="aigle", name="Aigle", characteristics=dict(GOB, Fo=3, Dex=40, Dep=10),
                               pv=30, body=Body(wings_left=1, wings_right=1)))
    c.execute(F.EndFight(fight="gue"))
    c.execute(F.StartFight(fight="gue", participants=("thor", "lysa", "aigle")))
    refused(c, F.Move(fight="gue", character="aigle", metres=2, u_turns=1), "U-turns cost 2 m more in flight only "
            "(I-L564).")
    # I-L566: 6 × Fo 3 = 18 Vit; Lysa has 40
    refused(c, F.Fly(fight="gue", character="aigle", passengers=("lysa",)),
            "Aigle carries passengers of 18 Vit at most (6 × Fo), not 40 (I-L566).", faces=[30])
    c.execute(F.Fly(fight="gue", character="aigle"), faces=[30])  # 10 m left, doubled: 20
    ev = c.execute(F.Move(fight="gue", character="aigle", metres=5, u_turns=1))[0].event
    assert ev.left_m == 13  # 20 − 5 − 2 (I-L564)


def test_a_creature_with_two_left_forelegs_loses_the_second_before_the_hits_go_to_the_trunk():
    from cristal_events.rulesets.illergan.locations import limb_gone
    spider = Body(anterior_left=2, anterior_right=2, posterior_left=2, posterior_right=2)
    zone = "membres antérieurs gauches"
    assert (limb_gone(spider, zone, (zone,)), limb_gone(spider, zone, (zone, zone))) == (False, True)
    assert (limb_gone(None, "bras gauche", ()), limb_gone(None, "bras gauche", ("bras gauche",))) == (False, True)


def test_a_coup_precis_bleeds_letalite_times_two(camp):
    camp.execute(H.Carry(character="thor", item="Stylet", qty=1))  # equip takes what is carried (I-L47-48)
    camp.execute(H.Equip(character="thor", slot="weapon", item="Stylet"))
    ev = camp.execute(attack(letalite=3), faces=[1, 50, 3])[0].event
    assert (ev.rider.name, ev.rider.pv_per_turn) == ("Hémorragie", 6)  # I-L507: −[Létalité × 2]
    initiative(camp)
    assert hero(camp, "gob").pv == 157 - 6
