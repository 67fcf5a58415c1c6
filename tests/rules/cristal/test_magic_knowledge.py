"""Issue 16 items 1, 7, 8, 16, 17, 18: magic as the book writes it (seed 000, lines cited).

A caster casts only what it learned (L935, L954, L1042), magic items (L851, L861, L1137-L1167), the
heal sources (L1190), potions as objects (L1179-L1184) and crystals on the owner's sheet (L917-L923,
L1083-L1093).
"""

from __future__ import annotations

import msgspec
from harness import given

from cristal_events.rolls import Roll
from cristal_events.rulesets.cristal import characters as C
from cristal_events.rulesets.cristal import fights as F

LIA = (C.CreateCharacter(id="lia", race="Elfe", name="Lia"), C.AwardXp(characters=("lia",), amount=1000, reason="départ"))
FIGHT = F.StartCombat(combat="c", fighters=["lia", "york"], its={"york": 50},
                      stats={"york": {"ATT": 3, "DP": 10, "PV": 20, "DM": 0}})


def test_a_caster_cannot_cast_a_spell_it_never_learned():
    # L935 "le mage doit connaître la formule du sort"; L954 "Il doit apprendre chacun des sorts"
    given(*LIA, FIGHT).when(F.CastSpell(combat="c", actor="lia", spell="Détection Magique"), faces=[10]).refused(
        "Lia does not know Détection Magique (L954): learn it first with "
        "'cristal xp buy spell lia \"Détection Magique\"'.")


def test_the_xp_of_a_learned_spell_buys_the_right_to_cast_it():
    # L1151: Détection Magique costs 25 XP, CNC 4, 1 PM, 4 s; Elfe PM 12 (L557)
    table = given(*LIA, C.LearnSpell(character="lia", spell="Détection Magique"), FIGHT).table
    assert table.rules.characters["lia"].xp == 1000 - 25
    [cast] = [e for e in given(table=table).when(
        F.CastSpell(combat="c", actor="lia", spell="Détection Magique"), faces=[10]).events()
        if isinstance(e, F.SpellCast)]
    assert (cast.success, cast.pm_cost, cast.pm_after) == (True, 1, 11)


def test_storing_needs_the_spell_and_fermeture_cristalline():
    # L1077: "le mage doit exécuter normalement le sort ... en plus du sort Fermeture Cristalline"
    known = given(*LIA, C.LearnSpell(character="lia", spell="Détection Magique"), FIGHT)
    known.when(F.StoreInCrystal(combat="c", actor="lia", crystal="bleu", spell="Détection Magique", capacity=9),
               faces=[10, 10]).refused(
        "Lia does not know Fermeture Cristalline (L954): learn it first with "
        "'cristal xp buy spell lia \"Fermeture Cristalline\"'.")


def test_an_extra_of_the_game_master_casts_with_the_gm_numbers():
    # L1325: an extra's numbers (and spells) are the GM's; no sheet to check
    out = given(F.StartCombat(combat="c", fighters=["xar"], stats={"xar": {"CNC": 10, "PM": 10}})).when(
        F.CastSpell(combat="c", actor="xar", spell="Détection Magique"), faces=[10]).events()
    assert [e.success for e in out if isinstance(e, F.SpellCast)] == [True]


# ------------------------------------------------------------------ item 8: magic never heals (L1190)
HURT = (C.CreateCharacter(id="thor", race="Humain", name="Thor"), C.Damage(character="thor", amount=5, reason="chute"))


def test_a_potion_of_healing_is_magic_and_never_heals():
    # L1190 "Jamais la magie ne pourra guérir, soigner ou régénérer un être vivant d'une manière ou d'une autre"
    for wording in ("potion de soin", "Potion", "sort de soin", "cristal de vie", "magie"):
        given(*HURT).when(C.Heal(character="thor", amount=5, source=wording, reason="r")).refused(
            "Magic can never heal a living being (L1190); record who or what healed instead.")


def test_the_heal_source_is_a_closed_choice():
    # the book's sources: regeneration (L367), care, alignment (L1419), the divine (L1190); nothing else
    given(*HURT).when(C.Heal(character="thor", amount=5, source="herbes", reason="r")).refused(
        "Unknown heal source 'herbes'; a heal comes from natural, care, alignment or divine (L367, L1190, L1419).")
    [ev] = given(*HURT).when(C.Heal(character="thor", amount=9, source="Soins", reason="bandages")).events()
    assert (ev.source, ev.healed) == ("care", 5)  # Humain PVmax 12 (L518): 7 + 5, capped
    [ev] = given(*HURT).when(C.Heal(character="thor", amount=2, source="divin", reason="prière")).events()
    assert (ev.source, ev.healed) == ("divine", 2)


# ------------------------------------------------------------------ item 7: only magic items raise DM (L861)
def test_a_non_magic_item_cannot_raise_dm():
    # L861 "Seul les items magiques ont la capacité de renforcer la DM"; magic = MAG > 0 (L1137)
    given(*HURT).when(C.AddItem(character="thor", item="Cape", properties={"dm": 2})).refused(
        "Cape raises DM by 2 but has MAG 0: only a magic item (MAG > 0) can raise DM (L861, L1137).")
    given(*HURT).when(C.AddItem(character="thor", item="Cape", properties={"modifiers": {"DM": 1}})).refused(
        "Cape raises DM by 1 but has MAG 0: only a magic item (MAG > 0) can raise DM (L861, L1137).")


def test_a_magic_item_raises_its_wearers_dm_and_its_own_dm_is_its_mag():
    # L861-L863: the item's DM adds to the wearer's; L851: its own DM = MAG (MAG 3 -> DM 3); Humain DM 0 (L522)
    from cristal_events.rulesets.cristal import equipment as eq
    table = given(*HURT, C.AddItem(character="thor", item="Cape bleue", properties={"dm": 2, "mag": 3}),
                  C.EquipItem(character="thor", item="Cape bleue")).table
    thor = table.rules.characters["thor"]
    assert C.stable_of(thor, C.content_of(table.rules), "round").DM == 2
    assert eq.item_self_dm(thor.items[0].template) == 3


def test_a_pack_with_a_non_magic_dm_item_is_refused():
    given().when(C.LoadContentPack(name="p", data={"items": [{"name": "Bouclier", "dm": 1}]})).refused(
        "Bouclier raises DM by 1 but has MAG 0: only a magic item (MAG > 0) can raise DM (L861, L1137).")


# ------------------------------------------------------------------ item 18: crystals as equipment (L917-L923, L1083-L1093)
BLAST = F.StartCombat(combat="c", fighters=["xar", "taz", "york"], its={"taz": 50, "york": 50},
                      stats={"xar": {"CNC": 10, "PM": 40, "PV": 30}, "taz": {"PV": 20}, "york": {"PV": 20}})


def test_the_over_capacity_explosion_hits_everyone_within_six_metres():
    # L1093: 11 PM into a 9-PM crystal: [1d4] per PM = 11d4 (all 1s: 11) to the caster and to Taz within 6 m
    out = given(BLAST).when(F.StoreInCrystal(combat="c", actor="xar", crystal="bleu", spell="Rayon Magique",
                                             effects={"Distance": 3, "Dommage": 8}, capacity=9, time="4",
                                             within=["taz"]), faces=[8, 12] + [1] * 11).events()
    [stored] = [e for e in out if isinstance(e, F.CrystalStored)]
    assert (stored.outcome, stored.explosion) == ("exploded", "11d4")
    hits = {e.character: e.delta for e in out if isinstance(e, F.PvChanged) and "explosion" in e.cause}
    assert hits == {"xar": -11, "taz": -11}  # York, not named within the radius, is untouched


def test_a_crystal_is_on_its_owners_sheet_with_pm_max_spell_pm_price_and_size():
    # L921: a new crystal is written with its PM max; L1085: 10 to 19 PM cost 1 500 PO, 10 cm3;
    # storing Détection Magique (1 PM): Fermeture 3 + 1 per started 6 PM = 4 PM (L1115); Elfe PM 12 (L557)
    table = given(*LIA, C.LearnSpell(character="lia", spell="Détection Magique"),
                  C.LearnSpell(character="lia", spell="Fermeture Cristalline"),
                  C.AddItem(character="lia", item="bleu", properties={"crystal_pm": 19}), FIGHT).table
    def sheet():
        return C.sheet(table.rules.characters["lia"], C.content_of(table.rules), "round",
                       crystals_held=table.rules.crystals)["crystals"]

    assert sheet() == [{"name": "bleu", "pm_max": 19, "spell": "", "pm": 0, "locked_by": None, "destroyed": False,
                        "price_po": 1500, "size_cm3": 10}]
    given(table=table).when(F.StoreInCrystal(combat="c", actor="lia", crystal="bleu", spell="Détection Magique"),
                            faces=[10, 10]).events()  # CNC 3 (Elfe INT 3): 13 >= 4 and 13 >= 12
    assert table.rules.characters["lia"].pm == 12 - 1 - 4
    assert [(c["spell"], c["pm"], c["pm_max"]) for c in sheet()] == [("Détection Magique", 1, 19)]


def test_a_crystal_item_needs_its_pm_max_and_fifty_pm_is_special():
    # L1089: 50 PM and above: price "spéciale"
    given(*HURT).when(C.AddItem(character="thor", item="gemme", properties={"category": "Cristal Magique"})).refused(
        "The crystal gemme needs its PM max (--crystal-pm N, L919).")
    [ev] = given(*HURT).when(C.AddItem(character="thor", item="gros", properties={"crystal_pm": 50})).events()
    assert (ev.item.category, ev.item.price_po) == ("Cristal Magique", None)


# ------------------------------------------------------------------ item 16: magic items (L851, L1137-L1167)
from cristal_events.rulesets.cristal import artefacts as A  # noqa: E402

STAFF = (*LIA, C.AddItem(character="lia", item="Bâton de feu", properties={"mag": 2, "activation": "manual"}))


def test_detection_magique_reveals_the_mag_of_a_magic_item():
    # L1151-L1157: 1 PM, CNC 4; Elfe CNC 3 (INT 3) + d20 1 = 4 >= 4; the MAG (2) is known
    table = given(*STAFF, C.LearnSpell(character="lia", spell="Détection Magique")).table
    [ev] = given(table=table).when(A.DetectMagic(character="lia", item="Bâton de feu"), faces=[1]).events()
    assert (ev.success, ev.magic, ev.mag, ev.pm_cost) == (True, True, 2, 1)
    assert table.rules.characters["lia"].detected == {"Bâton de feu": 2}
    assert table.rules.characters["lia"].pm == 12 - 1


def test_analyse_magique_needs_four_pm_per_mag_and_then_the_manual_item_can_be_used():
    # L1167: MAG 2 -> 8 PM (2*4) + 2 PM de base = 10 PM; CNC 8: Elfe CNC 3 + d20 5 = 8
    table = given(*STAFF, C.LearnSpell(character="lia", spell="Analyse Magique")).table
    given(table=table).when(A.ActivateItem(character="lia", item="Bâton de feu")).refused(
        "Lia does not understand Bâton de feu: a manual artefact must first be understood with Analyse Magique "
        "(L1145, L1167).")
    [ev] = given(table=table).when(A.AnalyseMagic(character="lia", item="Bâton de feu", pm=8), faces=[5]).events()
    assert (ev.success, ev.understood, ev.pm_cost) == (True, True, 10)
    assert table.rules.characters["lia"].pm == 12 - 10
    [act] = given(table=table).when(A.ActivateItem(character="lia", item="Bâton de feu", what="flamme")).events()
    assert act.item == "Bâton de feu"


def test_analyse_magique_with_too_few_pm_leaves_the_artefact_unknown_and_the_pm_spent():
    # L1167, ruling D36: 4 PM of Magie understand MAG 1 only; the 2 + 4 PM are spent
    table = given(*STAFF, C.LearnSpell(character="lia", spell="Analyse Magique")).table
    [ev] = given(table=table).when(A.AnalyseMagic(character="lia", item="Bâton de feu", pm=4), faces=[5]).events()
    assert (ev.success, ev.understood, ev.pm_cost) == (True, False, 6)
    assert table.rules.characters["lia"].pm == 12 - 6 and table.rules.characters["lia"].understood == []


def test_an_automatic_artefact_is_always_active():
    # L1143: "N'importe quel individu est capable d'utiliser ces objets"
    given(*LIA, C.AddItem(character="lia", item="Épée magique", properties={"mag": 1, "att": 1})).when(
        A.ActivateItem(character="lia", item="Épée magique")).refused(
        "Épée magique is an automatic artefact: its magic is always active (L1143).")


# ------------------------------------------------------------------ item 17: potions as objects (L1169-L1184)
FIOLE = C.AddItem(character="lia", item="Fiole de feu", qty=2, properties={
    "potion": {"spell": "Boule de Feu", "spends": {"Dommage": 4}, "trigger": "contact", "brewed_day": 10}})


def test_a_carried_potion_is_used_once_and_leaves_the_bag():
    # L1181 "Utilisation unique"; L1177 the spell acts on whoever set it off: Boule de Feu 4 PM = [2d6]
    # (1d6/2, L1006) on York (DM 0); contact = a throw, 3 s (L1239)
    table = given(*LIA, FIOLE, FIGHT).table
    out = given(table=table).when(F.UsePotion(combat="c", actor="lia", spell="", item="Fiole de feu", target="york",
                                              day=30), faces=[2, 5]).events()
    [used] = [e for e in out if isinstance(e, F.PotionUsed)]
    assert (used.spell, used.pm, used.trigger, used.seconds, used.item) == ("Boule de Feu", 4, "contact", 3, "Fiole de feu")
    assert [e.delta for e in out if isinstance(e, F.PvChanged)] == [-7]
    assert [(i.name, i.qty) for i in table.rules.characters["lia"].items] == [("Fiole de feu", 1)]


def test_a_potion_fades_about_two_months_after_it_was_made():
    # L1182 "finit par se dissiper avec le temps (en moyenne 2 mois)": setting potion_fade_days = 60
    g = given(*LIA, FIOLE, FIGHT)
    g.when(F.UsePotion(combat="c", actor="lia", spell="", item="Fiole de feu", target="york", day=71),
           faces=[2, 5]).refused("Fiole de feu, made on day 10, has faded by day 71 (60 days, L1182): its spell is "
                                 "gone; drop it with 'item drop'.")
    given(*LIA, FIOLE, FIGHT, settings={"potion_fade_days": 0}).when(
        F.UsePotion(combat="c", actor="lia", spell="", item="Fiole de feu", target="york", day=400),
        faces=[2, 5]).events()


def test_a_potion_holds_at_most_fifteen_pm():
    # L1184 "peut contenir un maximum de 15 PM"
    given(*LIA).when(C.AddItem(character="lia", item="Grosse fiole", properties={
        "potion": {"spell": "Boule de Feu", "spends": {"Dommage": 16}}})).refused(
        "A potion holds at most 15 PM; Boule de Feu has 16.")


def test_a_fragile_contact_potion_that_breaks_goes_off_on_its_holder():
    # L1181 "Contenant habituellement fragile"; L1174 contact sets it off
    table = given(*LIA, FIOLE).table
    [ev] = given(table=table).when(A.BreakPotion(character="lia", item="Fiole de feu", reason="chute")).events()
    assert (ev.set_off, ev.spell) == (True, "Boule de Feu")
    assert [(i.name, i.qty) for i in table.rules.characters["lia"].items] == [("Fiole de feu", 1)]


def test_a_spell_against_a_magic_item_is_reduced_by_its_own_dm_equal_to_its_mag():
    # L851: "si un item à un MAG de 3, il possède automatiquement 3 de DM"; Boule de Feu Dommage 1d6/2,
    # Réduction 2 (L1026-L1034): 8 PM - 3 x 2 = 2 PM = [1d6]; Elfe CNC 3 + d20 13 = 16 >= 16
    table = given(*LIA, C.LearnSpell(character="lia", spell="Boule de Feu", cost=50),
                  C.AddItem(character="lia", item="Bouclier runique", properties={"mag": 3})).table
    [ev] = given(table=table).when(A.CastOnItem(character="lia", item="Bouclier runique", spell="Boule de Feu",
                                                effects={"Dommage": 8}), faces=[13, 4]).events()
    assert (ev.item_dm, ev.success, ev.pm_cost) == (3, True, 8)
    assert [(e.pm_after, e.amount, e.roll.total) for e in ev.effects] == [(2, "1d6", 4)]
    assert table.rules.characters["lia"].pm == 12 - 8


def test_the_crystal_spells_must_be_known_to_inspect_lock_or_release():
    # L1099-L1135: Libération, Vision, Verrou are spells to learn (30, 100, 500 XP) like any other (L954)
    g = given(*LIA, F.StartCombat(combat="c", fighters=["xar", "lia"], its={"lia": 5},
                                  stats={"xar": {"CNC": 10, "PM": 40}}),
              (F.StoreInCrystal(combat="c", actor="xar", crystal="bleu", spell="Rayon Magique",
                                effects={"Distance": 3, "Dommage": 8}, capacity=19, time="4"), [8, 12]))
    for cmd, spell in ((F.InspectCrystal(combat="c", actor="lia", crystal="bleu"), "Vision Cristalline"),
                       (F.LockCrystal(combat="c", actor="lia", crystal="bleu"), "Verrou Cristallin"),
                       (F.ReleaseCrystal(combat="c", actor="lia", crystal="bleu"), "Libération Cristalline")):
        given(table=g.table).when(cmd, faces=[10]).refused(
            f"Lia does not know {spell} (L954): learn it first with 'cristal xp buy spell lia \"{spell}\"'.")


def test_chance_redoes_the_explosion_roll_for_everyone_it_hit():
    # L56: "Tous les types de jet de dés"; L1093: the 11d4 blast (11 PM into a 9-PM crystal) hit Xar and Taz
    # for 11; Xar's Chance redoes it, 22: each one's PV move by 11 - 22 = -11 (Xar 30 - 22 = 8, Taz 20 - 22 = -2)
    start = msgspec.structs.replace(BLAST, stats={**BLAST.stats, "xar": {**BLAST.stats["xar"], "CHANCE": 1}})
    store = F.StoreInCrystal(combat="c", actor="xar", crystal="bleu", spell="Rayon Magique",
                             effects={"Distance": 3, "Dommage": 8}, capacity=9, time="4", within=["taz"])
    table = given(start, (store, [8, 12] + [1] * 11)).table
    out = given(table=table).when(F.Reroll(combat="c", actor="xar"), faces=[2] * 11).events()
    [redone] = [e for e in out if isinstance(e, F.RollRedone)]
    assert (redone.kind, redone.crystal, redone.targets, redone.damage_before, redone.damage, redone.left) == (
        "explosion", "bleu", ["xar", "taz"], 11, 22, 0)
    assert redone.old.total == 11 and redone.roll.faces == (2,) * 11
    hits = {e.character: (e.delta, e.pv_after) for e in out if isinstance(e, F.PvChanged)}
    assert hits == {"xar": (-11, 8), "taz": (-11, -2)}  # York, not within 6 m, untouched
    given(table=table).when(F.Reroll(combat="c", actor="xar"), faces=[1] * 11).refused(
        "xar has no Chance reroll left today (L56).")


def test_chance_redoes_a_failed_verrou_cristallin_roll():
    # L56; L1129-L1132: Verrou Cristallin, 5 PM, CNC 16, 60 s; Xar's CNC 10 + d20 5 = 15 fails (60 s, the
    # Temps alone); Chance: d20 6, 16 succeeds: the crystal is locked and the action lasts 60 + 16 / 2 = 68 s
    start = msgspec.structs.replace(BLAST, stats={**BLAST.stats, "xar": {**BLAST.stats["xar"], "CHANCE": 1}})
    store = F.StoreInCrystal(combat="c", actor="xar", crystal="bleu", spell="Rayon Magique",
                             effects={"Distance": 3, "Dommage": 8}, capacity=19, time="4")
    table = given(start, (store, [8, 10]), (F.LockCrystal(combat="c", actor="xar", crystal="bleu"), [5])).table
    assert table.rules.crystals["bleu"].locked_by is None
    it = table.rules.combats["c"].it["xar"]
    [redone] = given(table=table).when(F.Reroll(combat="c", actor="xar"), faces=[6]).events()
    assert (redone.kind, redone.spell, redone.success, redone.margin, redone.old.total, redone.roll.total) == (
        "crystal", "Verrou Cristallin", True, 0, 5, 6)
    assert (redone.it_before, redone.it_after) == (it, it + 8)
    assert table.rules.combats["c"].it["xar"] == it + 8
    assert table.rules.crystals["bleu"].locked_by == "xar"
    assert table.rules.combats["c"].fighters["xar"].last_roll.success


def test_chance_redoes_a_vision_cristalline_roll_and_shows_the_spell():
    # L56; L1119-L1125: Vision Cristalline, 1 PM, CNC 8, 20 s; a mage of CNC -5 stores Rayon Magique (11 PM)
    start = msgspec.structs.replace(BLAST, stats={**BLAST.stats, "xar": {**BLAST.stats["xar"], "CNC": -5,
                                                                           "CHANCE": 1}})
    store = F.StoreInCrystal(combat="c", actor="xar", crystal="bleu", spell="Rayon Magique",
                             effects={"Distance": 3, "Dommage": 8}, capacity=19, time="4")
    table = given(start, (store, [20, 20]), (F.InspectCrystal(combat="c", actor="xar", crystal="bleu"), [10])).table
    it = table.rules.combats["c"].it["xar"]
    [redone] = given(table=table).when(F.Reroll(combat="c", actor="xar"), faces=[13]).events()
    # -5 + 10 = 5 < 8 failed (20 s); -5 + 13 = 8 succeeds: 20 + 4 s, and the crystal shows its spell
    assert (redone.success, redone.it_after - it, redone.seen) == (True, 4, "Rayon Magique (11 PM : Distance 3 PM, Dommage 8 PM)")


# ------------------------------------------- item 4: Chance on Fermeture and Libération Cristalline (L56)
LUCKY = msgspec.structs.replace(BLAST, stats={**BLAST.stats, "xar": {**BLAST.stats["xar"], "CHANCE": 2}})
RAYON = dict(spell="Rayon Magique", effects={"Distance": 3, "Dommage": 8}, time="4")  # Xar's example: 3 + 8 = 11 PM (L1055-L1060)


def test_chance_redoes_a_failed_fermeture_roll_and_the_spell_is_stored():
    # L56 "Tous les types de jet de dés"; L1077, L1115: Fermeture CNC 12: Xar's CNC 10 + d20 1 = 11 fails, the
    # operation fails (the Temps alone); Chance: d20 2, 12 succeeds: Rayon Magique (11 PM) is in the 19-PM crystal
    store = F.StoreInCrystal(combat="c", actor="xar", crystal="bleu", capacity=19, **RAYON)
    table = given(LUCKY, (store, [8, 1])).table
    assert table.rules.crystals["bleu"].stored is None
    it = table.rules.combats["c"].it["xar"]
    pm = table.rules.combats["c"].fighters["xar"].pm
    [redone] = given(table=table).when(F.Reroll(combat="c", actor="xar"), faces=[2]).events()
    assert (redone.kind, redone.spell, redone.success, redone.outcome, redone.margin, redone.left) == (
        "crystal", "Fermeture Cristalline", True, "stored", 0, 1)
    assert (redone.old.total, redone.roll.total, redone.it_before) == (1, 2, it)
    stored = table.rules.crystals["bleu"].stored
    assert (stored.name, stored.pm) == ("Rayon Magique", 11)
    assert table.rules.combats["c"].it["xar"] == redone.it_after > it  # the combustion is paid on a success
    assert table.rules.combats["c"].fighters["xar"].pm == pm  # the PM stay paid
    # and back: a new d20 1 fails again, the crystal is empty again
    [again] = given(table=table).when(F.Reroll(combat="c", actor="xar"), faces=[1]).events()
    assert (again.success, again.outcome, again.it_after) == (False, "failed", it)
    assert table.rules.crystals["bleu"].stored is None


def test_chance_on_fermeture_over_capacity_now_explodes_for_everyone_within_six_metres():
    # L1093: 11 PM into a 9-PM crystal, Fermeture 10 + 1 = 11 < 12 failed: nothing happens; Chance d20 2 succeeds:
    # the crystal explodes, 11d4 (all 1s: 11) to Xar and to Taz within 6 m; York untouched
    store = F.StoreInCrystal(combat="c", actor="xar", crystal="bleu", capacity=9, within=["taz"], **RAYON)
    table = given(LUCKY, (store, [8, 1])).table
    out = given(table=table).when(F.Reroll(combat="c", actor="xar"), faces=[2] + [1] * 11).events()
    [redone] = [e for e in out if isinstance(e, F.RollRedone)]
    assert (redone.outcome, redone.blast.expr, redone.damage, redone.targets) == ("exploded", "11d4", 11, ["xar", "taz"])
    hits = {e.character: (e.delta, e.pv_after) for e in out if isinstance(e, F.PvChanged)}
    assert hits == {"xar": (-11, 19), "taz": (-11, 9)}
    assert table.rules.crystals["bleu"].destroyed
    # the blast is now the last roll: the second Chance redoes its dice (2 each: 22)
    again = given(table=table).when(F.Reroll(combat="c", actor="xar"), faces=[2] * 11).events()
    assert [(e.kind, e.damage_before, e.damage) for e in again if isinstance(e, F.RollRedone)] == [
        ("explosion", 11, 22)]


def test_chance_redoes_a_successful_liberation_roll_and_the_target_gets_its_pv_back():
    # L1099-L1105: Libération CNC 5, 2 PM; a mage of CNC -5: -5 + 10 = 5 succeeds, Rayon Magique's Dommage
    # 8 PM (4d6, 3 each: 12) hits York (20 -> 8); Chance d20 9: 4 < 5 fails: the spell stays in the crystal
    # and York's PV come back by 12
    start = msgspec.structs.replace(LUCKY, stats={**LUCKY.stats, "xar": {**LUCKY.stats["xar"], "CNC": -5}})
    store = F.StoreInCrystal(combat="c", actor="xar", crystal="bleu", capacity=19, **RAYON)
    release = F.ReleaseCrystal(combat="c", actor="xar", crystal="bleu", targets=["york"])
    table = given(start, (store, [20, 20]), (release, [10, 3, 3, 3, 3])).table
    assert table.rules.crystals["bleu"].stored is None
    out = given(table=table).when(F.Reroll(combat="c", actor="xar"), faces=[9]).events()
    [redone] = [e for e in out if isinstance(e, F.RollRedone)]
    assert (redone.spell, redone.success, redone.released, redone.damage_before, redone.margin) == (
        "Libération Cristalline", False, "", 12, -1)
    assert [(e.character, e.delta, e.pv_after) for e in out if isinstance(e, F.PvChanged)] == [("york", 12, 20)]
    assert table.rules.crystals["bleu"].stored.name == "Rayon Magique"
    # Chance again: d20 12, 7 >= 5: the spell goes off on York with new dice (4d6: 1, 2, 3, 4 = 10)
    out = given(table=table).when(F.Reroll(combat="c", actor="xar"), faces=[12, 1, 2, 3, 4]).events()
    [released] = [e for e in out if isinstance(e, F.SpellReleased)]
    assert (released.source, released.results[0].damage) == ("crystal", 10)
    assert [(e.character, e.pv_after) for e in out if isinstance(e, F.PvChanged)] == [("york", 10)]
    assert table.rules.crystals["bleu"].stored is None
    given(table=table).when(F.Reroll(combat="c", actor="xar"), faces=[1]).refused(
        "xar has no Chance reroll left today (L56).")


def test_a_fermeture_logged_before_its_total_was_recorded_stays_the_gms_to_correct():
    # an older log's combat.crystal_stored (no fermeture_cnc): its d20 cannot be redone by a command (D16)
    d20 = Roll(expr="1d20", faces=(1,), total=1, source="entered")
    old = F.CrystalStored(name="c", caster="xar", crystal="bleu", capacity=19, spell="Rayon Magique", spends=[],
                          pm=11, fermeture_pm=2, outcome="failed", fermeture_roll=d20, spell_success=True, seconds=4)
    given(LUCKY, old).when(F.Reroll(combat="c", actor="xar"), faces=[2]).refused(
        "xar's last roll is a crystal spell's roll logged without its concentration total; Chance cannot redo "
        "it, the GM corrects it.")
