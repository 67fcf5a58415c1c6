"""Lois du Cristal characters as event streams: commands decided against the log (issue 4).

Values from seed 000 (line numbers cited) and the catalogue's test vectors (TV-nn). The rules are
decided on the harness's in-memory table (tests/harness.py); the corrections, time travel and a pack
read back from the file use a campaign file.
"""

from __future__ import annotations

import pytest
from harness import Table, given
from helpers import refused

from cristal_events.errors import RuleError, UnknownEntity
from cristal_events.ruleset import Emit
from cristal_events.rulesets.cristal import characters as C
from cristal_events.service import Campaign


@pytest.fixture
def camp():
    return Table("cristal", rounding="round", seed=7)


@pytest.fixture
def stored(tmp_path):
    c = Campaign.create(tmp_path / "c.db", name="Test", ruleset="cristal", rounding="round", seed=7)
    yield c
    c.close()


def make(rounding):
    return Table("cristal", rounding=rounding, seed=1)


def char(camp, cid):
    return camp.state().rules.characters[cid]


def sheet(camp, cid):
    rules = camp.state().rules
    return C.sheet(rules.characters[cid], C.content_of(rules), camp.header.rounding)


# ------------------------------------------------------------------------------------ creation
RACES = [
    # race, fixed bases, the six senses (L191-L204; Extrasensoriel unprinted: 0), PV = PVmax, PM = PMmax, DP, DM (L517-L522, L556-L562, L596-L602)
    ("Humain", dict(FRC=0, DEX=0, INT=0, MAG=0, CON=0, REF=0, OBS=0, MEM=0, CHAR=0),
     dict(Vue=0, Ouïe=0, Goûter=0, Odorat=0, Toucher=0, Extrasensoriel=0), 12, 6, 10, 0),
    ("Elfe", dict(FRC=-3, DEX=3, INT=3, MAG=2, CON=0, REF=0, OBS=3, MEM=-2, CHAR=3),
     dict(Vue=6, Ouïe=6, Goûter=2, Odorat=2, Toucher=2, Extrasensoriel=0), 6, 12, 10, 2),
    ("Nain", dict(FRC=3, DEX=-2, INT=-3, MAG=0, CON=4, REF=-3, OBS=-3, MEM=2, CHAR=-2),
     dict(Vue=-4, Ouïe=2, Goûter=0, Odorat=0, Toucher=4, Extrasensoriel=0), 16, 2, 12, 0),
]


@pytest.mark.parametrize("race,fixed,senses,pv,pm,dp,dm", RACES, ids=[r[0] for r in RACES])
def test_creation_gives_the_race_values(camp, race, fixed, senses, pv, pm, dp, dm):
    camp.execute(C.CreateCharacter(id="x", race=race, name="X"))
    s = sheet(camp, "x")
    assert s["race"] == race and s["global_level"] == 0 and s["alignment"] == 0  # L60, L1464
    assert s["fixed"] == fixed
    assert s["senses"] == senses  # L1470: senses from the race, not modifiable
    assert s["variable"] == {"PV": pv, "PM": pm, "XP": 0, "IT": 0}  # L1478: 0 XP unless granted
    assert (s["stable"]["PVmax"], s["stable"]["PMmax"], s["stable"]["DP"], s["stable"]["DM"]) == (pv, pm, dp, dm)


def test_creation_applies_the_gm_adjustments_and_records_them(camp):
    # L1466: trading 2 FRC for 2 INT
    recs = camp.execute(C.CreateCharacter(id="thor", race="Humain", adjustments={"FRC": -2, "int": 2}))
    ev = recs[0].event
    assert ev.race_fixed["FRC"] == 0 and ev.adjustments == {"FRC": -2, "INT": 2}
    assert char(camp, "thor").fixed["FRC"] == -2 and char(camp, "thor").fixed["INT"] == 2
    assert recs[0].stream == "character:thor"


def test_creation_rolls_1d4_minus_2_per_state_with_entered_faces(camp):
    # L1466: [1d4 -2] on each fixed state, FRC to CHAR
    camp.execute(C.CreateCharacter(id="r", race="Humain", roll_adjustments=True), faces=[4, 1, 2, 3, 4, 4, 1, 1, 2])
    assert list(char(camp, "r").fixed.values()) == [2, -1, 0, 1, 2, 2, -1, -1, 0]


@pytest.mark.parametrize("command,exc,message", [
    (C.CreateCharacter(id="y", race="Orque"), UnknownEntity, "Unknown race 'Orque'; known races: Elfe, Humain, Nain."),
    (C.CreateCharacter(id="y", race="Humain", adjustments={"STR": 1}), UnknownEntity,
     "Unknown fixed state 'STR'; fixed states: FRC, DEX, INT, MAG, CON, REF, OBS, MEM, CHAR."),
    (C.CreateCharacter(id="y", race="Humain", sex="X"), RuleError, "Sex must be F or M, not 'X'."),
    (C.CreateCharacter(id="thor", race="Humain"), RuleError, "Character 'thor' already exists."),
], ids=["unknown-race", "unknown-stat", "bad-sex", "duplicate"])
def test_creation_refusals_append_nothing(camp, command, exc, message):
    camp.execute(C.CreateCharacter(id="thor", race="Humain"))
    refused(camp, command, message, exc=exc)


# ------------------------------------------------------------------------------------ XP economy
@pytest.mark.parametrize("race,costs", [
    ("Humain", [100, 200, 400, 800, 1600]),  # L538-L545
    ("Elfe", [175, 350, 700, 1400, 2800]),   # L577-L586
    ("Nain", [125, 250, 500, 1000, 2000]),   # L617-L626
], ids=["Humain", "Elfe", "Nain"])
def test_level_purchases_cost_the_race_table(camp, race, costs):
    camp.execute(C.CreateCharacter(id="x", race=race))
    camp.execute(C.AwardXp(characters=("x",), amount=sum(costs), reason="test"))
    charged = []
    for n in range(1, len(costs) + 1):
        ev = camp.execute(C.BuyLevel(character="x", class_name="Guerrier", stat="CON"))[0].event
        assert (ev.global_level, ev.class_level) == (n, n)
        assert ev.cost_required == ev.cost_charged
        charged.append(ev.cost_charged)
    assert charged == costs
    assert char(camp, "x").xp == 0 and char(camp, "x").fixed["CON"] == {"Nain": 4}.get(race, 0) + len(costs)  # L66


def test_a_nains_17th_level_is_refused(camp):
    camp.execute(C.CreateCharacter(id="gimli", race="Nain"))
    camp.execute(C.AwardXp(characters=("gimli",), amount=8_191_875 + 10_000_000, reason="test"))
    for _ in range(16):  # Nain limit 16 costs 4 096 000 (L626); 8 191 875 in all (TV-07)
        ev = camp.execute(C.BuyLevel(character="gimli", class_name="Guerrier", stat="FRC"))[0].event
    assert (ev.global_level, ev.cost_charged) == (16, 4_096_000)
    assert char(camp, "gimli").xp == 10_000_000
    refused(camp, C.BuyLevel(character="gimli", class_name="Mage", stat="FRC"),
            "A Nain cannot go beyond global level 16 (race limit, L501).")


def test_guerrier_2_plus_mage_1_sums_the_class_rows():
    # L636: rows of all classes summed; L650: each class gives its own level's row.
    for rounding, pv_max, pm_max in (("round", 19, 8), ("truncate", 19, 7)):
        camp = make(rounding)
        camp.execute(C.CreateCharacter(id="x", race="Humain"))
        camp.execute(C.AwardXp(characters=("x",), amount=700, reason="test"))
        for cls in ("Guerrier", "Mage", "Guerrier"):
            camp.execute(C.BuyLevel(character="x", class_name=cls, stat="OBS"))
        s = sheet(camp, "x")
        assert s["classes"] == {"Guerrier": 2, "Mage": 1} and s["global_level"] == 3  # L62
        # PVmax 12 + 12 x 60% = 19.2; PMmax 6 + 6 x 30% = 7.8; DP 10 + 10% ; ATT 0 + 2; CNC 0 + 1
        assert s["stable"] | {"DMG": None} == {"DP": 11, "DM": 0, "ATT": 2, "DMG": None, "CNC": 1,
                                               "PVmax": pv_max, "PMmax": pm_max, "weapon": ""}
        assert s["variable"]["XP"] == 0


def test_xp_cannot_go_negative():
    table = given(C.CreateCharacter(id="x", race="Elfe"), C.AwardXp(characters=("x",), amount=174, reason="test")) \
        .when(C.BuyLevel(character="x", class_name="Mage", stat="INT")) \
        .refused("x has 174 XP; global level 1 costs 175 XP.")
    assert char(table, "x").xp == 174


def test_class_prerequisites_and_unknown_class(camp):
    camp.execute(C.CreateCharacter(id="x", race="Humain"))
    camp.execute(C.AwardXp(characters=("x",), amount=1000, reason="test"))
    refused(camp, C.BuyLevel(character="x", class_name="Barde", stat="INT"),
            "Unknown class 'Barde'; known classes: Guerrier, Mage, Voleur.", exc=UnknownEntity)
    refused(camp, C.BuyTechnique(character="x", technique="Lecture et écriture de la magie"),
            "Lecture et écriture de la magie requires Mage level 1.")  # L757, L796


@pytest.mark.parametrize("race,technique,costs", [
    ("Humain", "Natation", [20, 40, 80]),   # L782
    ("Humain", "Forestier", [25, 50, 100]),  # L788
    ("Elfe", "Forestier", [10, 20, 40]),     # L790: Elfe 10
], ids=["natation", "forestier", "forestier-elfe"])
def test_a_techniques_next_level_costs_twice_the_previous(camp, race, technique, costs):
    camp.execute(C.CreateCharacter(id="x", race=race))
    camp.execute(C.AwardXp(characters=("x",), amount=sum(costs), reason="test"))
    got = [camp.execute(C.BuyTechnique(character="x", technique=technique))[0].event for _ in costs]
    assert [e.cost_charged for e in got] == costs and [e.level for e in got] == [1, 2, 3]
    assert got[1].cost_charged == 2 * got[0].cost_charged
    assert char(camp, "x").techniques == {technique: 3} and char(camp, "x").xp == 0


def test_spell_learning_costs_its_learning_cost():
    camp = given(C.CreateCharacter(id="x", race="Elfe"), C.AwardXp(characters=("x",), amount=60, reason="test")) \
        .when(C.LearnSpell(character="x", spell="Détection Magique")) \
        .then(C.SpellLearned(character="x", spell="Détection Magique", cost_charged=25, cost_required=25,
                             balance_after=35))  # 25 XP (L1137)
    assert char(camp, "x").spells == ["Détection Magique"]
    refused(camp, C.LearnSpell(character="x", spell="détection magique"), "x already knows Détection Magique.")
    refused(camp, C.LearnSpell(character="x", spell="Fermeture Cristalline"),
            "x has 35 XP; learning Fermeture Cristalline costs 200 XP.")


def test_spell_without_printed_cost_needs_the_gms_price(camp):
    camp.execute(C.CreateCharacter(id="x", race="Humain"))
    camp.execute(C.AwardXp(characters=("x",), amount=100, reason="test"))
    refused(camp, C.LearnSpell(character="x", spell="Rayon Magique"),
            "The book prints no learning cost for Rayon Magique; give the GM's price with --cost.")
    ev = camp.execute(C.LearnSpell(character="x", spell="Rayon Magique", cost=80))[0].event
    assert (ev.cost_charged, ev.cost_required) == (80, 80)


@pytest.mark.parametrize("award,message,exc", [
    (C.AwardXp(characters=("x",), amount=60, reason=" "), "An XP award needs a reason (--reason).", RuleError),
    (C.AwardXp(characters=("x",), amount=-5, reason="r"), "An XP award must be a positive number of XP, not -5.",
     RuleError),
    (C.AwardXp(characters=("nobody",), amount=5, reason="r"), "Unknown character 'nobody'; known characters: x.",
     UnknownEntity),
], ids=["no-reason", "negative", "unknown"])
def test_xp_award_needs_a_reason_and_a_positive_amount(award, message, exc):
    given(C.CreateCharacter(id="x", race="Humain")).when(award).refused(message, exc)


def test_award_all_gives_every_living_character():
    why = "Starting XP (L1478)"
    camp = given(C.CreateCharacter(id="a", race="Humain"), C.CreateCharacter(id="b", race="Elfe")) \
        .when(C.AwardXp(all=True, amount=600, reason=why)) \
        .then(Emit("character:a", C.XpAwarded(character="a", amount=600, reason=why, balance_after=600)),
              Emit("character:b", C.XpAwarded(character="b", amount=600, reason=why, balance_after=600)))
    assert char(camp, "a").xp == char(camp, "b").xp == 600


# ------------------------------------------------------------------------------------ equipment
def test_an_item_with_a_disabling_handicap_cannot_be_equipped(camp):
    # L871: FRC +2 with a two-handed sword FRC -6 gives -4: cannot use it (TV-13) unless the GM allows it (L801)
    camp.execute(C.CreateCharacter(id="x", race="Humain", adjustments={"FRC": 2}))
    camp.execute(C.AddItem(character="x", item="Épée à deux mains"))
    refused(camp, C.EquipItem(character="x", item="Épée à deux mains"),
            "Épée à deux mains's handicap leaves FRC -4 (L871): the GM may still let x use it (L801) with "
            "--gm-allow REASON, adding penalties with --penalty STATE=N.")
    assert not char(camp, "x").items[0].equipped


def test_equipping_changes_the_stable_states(camp):
    # L869: heavy steel armour DEX -3 lowers ATT through DEX / 2; L855 DP summed
    camp.execute(C.CreateCharacter(id="x", race="Elfe"))
    camp.execute(C.AddItem(character="x", item="Armure d'acier lourde"))
    before = sheet(camp, "x")["stable"]
    camp.execute(C.EquipItem(character="x", item="armure d'acier lourde"))
    after = sheet(camp, "x")
    assert (before["DP"], after["stable"]["DP"]) == (10, 16)
    assert (before["ATT"], after["stable"]["ATT"]) == (2, 0)  # DEX 3 -> 0: 3/2 = 2 (round) then 0
    assert after["items"][0]["equipped"] is True
    camp.execute(C.UnequipItem(character="x", item="Armure d'acier lourde"))
    assert sheet(camp, "x")["stable"]["DP"] == 10


def test_custom_item_weapon_attack_and_drop(camp):
    camp.execute(C.CreateCharacter(id="x", race="Nain"))
    camp.execute(C.AddItem(character="x", item="Hache de combat"))
    camp.execute(C.EquipItem(character="x", item="Hache de combat"))
    s = sheet(camp, "x")
    # Nain FRC +3: DMG 1d12 (L605) + FRC/3 = +1 (L302)
    assert s["weapons"] == [{"name": "Hache de combat", "ATT": -1, "DMG": "1d12+1", "IT": 6}]
    camp.execute(C.AddItem(character="x", item="Excalibur", qty=1, properties={"dmg": "1d10", "att": 1, "mag": 3}))
    assert char(camp, "x").items[-1].template.mag == 3
    camp.execute(C.AddItem(character="x", item="Flèche", qty=20))
    camp.execute(C.DropItem(character="x", item="flèche", qty=3, reason="tirées"))
    assert [i.qty for i in char(camp, "x").items if i.name == "Flèche"] == [17]
    refused(camp, C.DropItem(character="x", item="Flèche", qty=18), "x carries 17 Flèche; cannot drop 18.")
    refused(camp, C.EquipItem(character="x", item="Bouclier"),
            "x carries no item 'Bouclier'; carried: Hache de combat, Excalibur, Flèche.", exc=UnknownEntity)


def test_gold_and_its_weight(camp):
    camp.execute(C.CreateCharacter(id="x", race="Humain", gold=100))
    assert sheet(camp, "x")["encumbrance"]["weight_kg"] == 4  # 100 coins = 4 kg (L820)
    camp.execute(C.ChangeGold(character="x", amount=-15, reason="auberge"))
    assert char(camp, "x").gold == 85
    refused(camp, C.ChangeGold(character="x", amount=-86, reason="épée"), "x has 85 PO; cannot pay 86.")


# ------------------------------------------------------------------------------------ rest and health
@pytest.mark.parametrize("race,rounding,regen", [
    ("Humain", "round", 2), ("Humain", "truncate", 1),  # 12 x 15% = 1.8 (TV-26, L491)
    ("Elfe", "round", 1), ("Elfe", "truncate", 0),      # 6 x 10% = 0.6
    ("Nain", "round", 3), ("Nain", "truncate", 3),      # 16 x 20% = 3.2
], ids=["humain-round", "humain-truncate", "elfe-round", "elfe-truncate", "nain-round", "nain-truncate"])
def test_rest_regenerates_the_races_percentage(race, rounding, regen):
    camp = make(rounding)
    camp.execute(C.CreateCharacter(id="x", race=race))
    pv_max = char(camp, "x").pv
    camp.execute(C.Damage(character="x", amount=5, reason="chute"))
    ev = camp.execute(C.Rest(characters=("x",), days=1))[0].event
    assert (ev.regen_per_day, ev.pv_gained) == (regen, regen)
    assert char(camp, "x").pv == pv_max - 5 + regen
    camp.execute(C.Rest(characters=("x",), days=10))
    assert char(camp, "x").pv == (pv_max if regen else pv_max - 5)  # "jusqu'à guérison complète"


def test_rest_fills_pm_and_renews_the_daily_pools(camp):
    camp.execute(C.CreateCharacter(id="healer", race="Humain", alignment=4))
    camp.execute(C.CreateCharacter(id="x", race="Humain"))
    camp.execute(C.Damage(character="x", amount=10, reason="orc"))
    # TV-25: alignment +4 gives 20 points a day (L1419); healing 6 PV
    ev = camp.execute(C.Heal(character="x", amount=6, source="alignment", reason="mains", healer="healer"))[0].event
    assert (ev.healed, ev.pool_used) == (6, 6)
    assert sheet(camp, "healer")["alignment_pool"] == {"max": 20, "left": 14}
    refused(camp, C.Heal(character="x", amount=15, source="alignment", reason="mains", healer="healer"),
            "Only 14 alignment points are left today, not 15.")
    camp.execute(C.Rest(all=True))
    assert sheet(camp, "healer")["alignment_pool"]["left"] == 20


def test_magic_cannot_heal_and_healing_stops_at_pvmax(camp):
    camp.execute(C.CreateCharacter(id="x", race="Humain"))
    camp.execute(C.Damage(character="x", amount=3, reason="chute"))
    refused(camp, C.Heal(character="x", amount=3, source="magie", reason="sort"),
            "Magic can never heal a living being (L1190); record who or what healed instead.")
    ev = camp.execute(C.Heal(character="x", amount=10, source="care", reason="bandages"))[0].event
    assert (ev.amount, ev.healed) == (10, 3) and char(camp, "x").pv == 12


def test_damage_unconscious_below_zero_and_death_below_the_threshold(camp):
    # L369: unconscious below 0; L373: Humain CON 0 dies below -12 (TV-26)
    camp.execute(C.CreateCharacter(id="x", race="Humain"))
    ev = camp.execute(C.Damage(character="x", amount=13, reason="chute"))[0].event
    assert (ev.pv_after, ev.unconscious, ev.dead) == (-1, True, False)
    ev = camp.execute(C.Damage(character="x", amount=12, reason="hémorragie"))[0].event
    assert (ev.pv_after, ev.dead) == (-13, True)
    refused(camp, C.Rest(characters=("x",)), "x is dead (L373); resting is refused.")


def test_alignment_change(camp):
    camp.execute(C.CreateCharacter(id="x", race="Humain"))
    camp.execute(C.ChangeAlignment(character="x", amount=-2, reason="vol"))
    assert char(camp, "x").alignment == -2
    refused(camp, C.ChangeAlignment(character="x", amount=1, reason=""),
            "An alignment change needs a reason (--reason).")


def test_temporary_alteration_until_ended(camp):
    # L1468: poison, FRC -3 for a while; the permanent column is untouched
    camp.execute(C.CreateCharacter(id="x", race="Nain"))
    pos = camp.execute(C.AlterState(character="x", stat="frc", delta=-3, until="antidote", reason="poison"))[0].position
    s = sheet(camp, "x")
    assert s["fixed"]["FRC"] == 0 and s["fixed_permanent"]["FRC"] == 3
    assert s["stable"]["DMG"] == "0"  # bare hands FRC/3 (D2): 3/3 = 1 before the poison
    camp.execute(C.EndAlteration(character="x", since=pos, reason="antidote"))
    assert sheet(camp, "x")["fixed"]["FRC"] == 3 and sheet(camp, "x")["stable"]["DMG"] == "1"


# ------------------------------------------------------------------------------------ corrections, time travel, packs
def test_a_correction_amends_the_state_and_keeps_the_original(stored):
    stored.execute(C.CreateCharacter(id="x", race="Humain"))
    pos = stored.execute(C.AwardXp(characters=("x",), amount=600, reason="goblins"))[0].position
    recs = stored.correct(pos, "600 entered instead of 60", {"amount": 60})
    assert [r.type for r in recs] == ["correction.recorded", "character.corrected"]
    assert recs[1].event.delta == -540 and recs[1].event.amends == pos
    assert char(stored, "x").xp == 60
    assert stored.store.get(pos).event.amount == 600  # the original stays (L9)
    refused(stored, C.BuyLevel(character="x", class_name="Guerrier", stat="FRC"),
            "x has 60 XP; global level 1 costs 100 XP.")


def test_state_at_returns_the_earlier_state(stored):
    stored.execute(C.CreateCharacter(id="x", race="Humain"))
    pos = stored.execute(C.AwardXp(characters=("x",), amount=300, reason="r"))[0].position
    stored.execute(C.BuyLevel(character="x", class_name="Guerrier", stat="FRC"))
    then = stored.state_at(pos).rules.characters["x"]
    assert (then.xp, then.global_level) == (300, 0)
    assert (char(stored, "x").xp, char(stored, "x").global_level) == (200, 1)


ORQUE = {"races": [{"name": "Orque", "pv_initial": 14, "regen_pct": 25, "pm_initial": 0, "dp_initial": 11,
                    "dm_initial": 0, "fixed": dict(FRC=4, DEX=0, INT=-4, MAG=-2, CON=3, REF=0, OBS=0, MEM=-2, CHAR=-4),
                    "senses": {"Odorat": 4}, "level_cost": 150, "level_limit": 12}]}


def test_a_content_pack_is_carried_by_its_event(stored):
    stored.execute(C.LoadContentPack(name="orques.json", data=ORQUE))
    stored.execute(C.CreateCharacter(id="grok", race="orque"))
    s = sheet(stored, "grok")
    assert (s["race"], s["stable"]["PVmax"], s["stable"]["PMmax"]) == ("Orque", 17, 0)
    refused(stored, C.LearnSpell(character="grok", spell="Détection Magique"),
            "A Orque cannot practise magic (PM initiaux 0, L493).")
    reopened = Campaign.open(stored.store.path)
    assert reopened.state().rules.characters["grok"].race == "Orque"
    reopened.close()
