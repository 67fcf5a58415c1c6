"""The illergan ruleset decided by the rules (tests/harness.py; a correction and a replay from the file on a campaign): creation, xp, checks, fights, spells, the tavern.

Dice are entered faces, so every expected value follows from the book's formulas (I-L<n> = line of
seed 001) and the EXAMPLE pack's game-master values (power die d6 at rank 1, ...).
"""

from __future__ import annotations

import msgspec
import pytest
from harness import Table
from helpers import refused

from cristal_events.errors import ContentError, RuleError, UnknownEntity
from cristal_events.rulesets.illergan import fights as F
from cristal_events.rulesets.illergan import heroes as H
from cristal_events.rulesets.illergan import tavern as T
from cristal_events.rulesets.illergan import trials as R
from cristal_events.rulesets.illergan.character import Choices
from cristal_events.rulesets.illergan.content import example_pack
from cristal_events.rulesets.illergan.locations import Body
from cristal_events.service import Campaign

THOR = dict(Fo=4, Dex=50, Vit=60, Vol=40, Mana=10, E=8, Cha=30, Sav=30, Dep=5, Agilité=40, Adresse=60)
LYSA = dict(Fo=2, Dex=45, Vit=40, Vol=55, Mana=60, E=12, Cha=35, Sav=50, Dep=5, Agilité=50, Adresse=40)
PACK = msgspec.to_builtins(example_pack())


def _thor(**kw):
    base = dict(character="thor", choices=Choices(name="Thor", race="Humain", class_name="Guerrier",
                                                  heritage="Enfant des rues"),
                characteristics=THOR, pv=40, pm=0, rn=10, gift_face=3)
    return H.CreateHero(**{**base, **kw})


def _gue(c):
    c.execute(H.LoadPack(name="example", data=PACK))
    c.execute(_thor())
    c.execute(H.CreateHero(character="lysa", choices=Choices(name="Lysa", race="Elfe", class_name="Mage",
                                                             heritage="Apprenti d'académie", magics=("Yarlysy",)),
                           characteristics=LYSA, pv=30, pm=60, rn=0, gift_face=5, spells=("Embrasement",)))
    return c


@pytest.fixture
def camp():
    return _gue(Table(name="Gué", ruleset="illergan", seed=7))


@pytest.fixture
def stored(tmp_path):
    c = _gue(Campaign.create(tmp_path / "x.db", name="Gué", ruleset="illergan", seed=7))
    yield c
    c.close()


def hero(c, cid):
    return c.state().rules.characters[cid]


def test_creation_follows_the_text(camp):
    thor = hero(camp, "thor")
    assert thor.destiny_points == 2  # TX-13, I-L330
    assert (thor.xp_total, thor.heritage_xp) == (0, 400)  # TX-14, I-L352, I-L588
    assert thor.max_charges == 14  # TX-17: 10 + Fo, I-L43
    assert thor.gift == "Oreille fine"  # d8 face 3 of the GM's gift table (I-L380)
    assert thor.skills["Acuité visuelle"].pct == 40  # the race's acuity (I-L327)
    assert hero(camp, "lysa").magics["Yarlysy"].level == 1  # I-L213


def test_gift_rolled_by_the_engine_is_stored():
    c = Table(name="G", ruleset="illergan", seed=3)
    c.execute(H.LoadPack(name="example", data=PACK))
    rec = c.execute(_thor(gift_face=None), faces=[8])[0]
    assert rec.event.gift_roll.faces == (8,)
    assert rec.event.character_data.gift == "Mémoire parfaite"


def test_without_a_pack_creation_names_what_is_missing():
    c = Table(name="N", ruleset="illergan")
    with pytest.raises(UnknownEntity, match="The race 'Humain' is not in this campaign's content pack."):
        c.execute(_thor())
    assert c.last_position() == 1


def test_a_pack_that_contradicts_the_text_is_refused(camp):
    before = camp.last_position()
    with pytest.raises(ContentError, match="contradicts the rules text at 'coin_ratio'"):
        camp.execute(H.LoadPack(name="faux", data={"name": "faux", "coin_ratio": 20}))
    assert camp.last_position() == before


@pytest.mark.parametrize(("target", "acquire", "total"), [
    (50, 100, 150),   # I-L481 100 xp, then 1 xp per % to 50 (I-L484)
    (75, 100, 200),   # 50 + 25 × 2
    (100, 100, 300),  # 200 xp for 0→100 at rank 1 (TX-07)
], ids=["to50", "to75", "to100"])
def test_buying_a_new_skill(camp, target, acquire, total):
    camp.execute(H.AwardXp(character="thor", amount=300, reason="quête"))
    ev = camp.execute(H.BuyXp(character="thor", kind="skill", target="Esquive", value=target))[0].event
    assert (ev.acquire_xp, ev.cost_required, ev.balance_after) == (acquire, total, 400 + 300 - total)
    assert hero(camp, "thor").skills["Esquive"].pct == target


def test_innate_skill_is_free_to_acquire_and_heritage_limits_apply(camp):
    ev = camp.execute(H.BuyXp(character="thor", kind="skill", target="Nage", value=10, heritage=True))[0].event
    assert (ev.acquire_xp, ev.cost_charged, ev.pool) == (0, 10, "heritage")  # innate (I-L481)
    with pytest.raises(RuleError, match="allows at most 200 xp on characteristics"):
        camp.execute(H.BuyXp(character="thor", kind="characteristic", target="Fo", value=6, heritage=True))


def test_pp_at_20_xp_raise_the_magic_level(camp):
    ev = camp.execute(H.BuyXp(character="lysa", kind="pp", target="Yarlysy", value=10, heritage=True))[0].event
    assert ev.cost_required == 200  # TX-18: 20 xp per pp (I-L208)
    assert hero(camp, "lysa").magics["Yarlysy"] == hero(camp, "lysa").magics["Yarlysy"].__class__(level=2, pp=10)


def test_a_refused_purchase_appends_nothing(camp):
    before = camp.last_position()
    with pytest.raises(RuleError, match="Esquive costs 150 xp but only 0 xp are available."):
        camp.execute(H.BuyXp(character="thor", kind="skill", target="Esquive", value=50))
    with pytest.raises(RuleError, match="A rank 0 skill is fixed"):
        camp.execute(H.BuyXp(character="thor", kind="skill", target="Polyvalence", value=10, heritage=True))
    assert camp.last_position() == before


@pytest.mark.parametrize(("face", "success", "critical", "fumble"), [
    (2, True, True, False), (40, True, False, False), (41, False, False, False), (99, False, False, True),
], ids=["02-crit", "equal", "above", "99-fumble"])
def test_skill_check(camp, face, success, critical, fumble):
    ev = camp.execute(R.RollCheck(character="thor", what="Acuité visuelle"), faces=[face])[0].event
    assert (ev.threshold, ev.success, ev.critical, ev.fumble) == (40, success, critical, fumble)  # I-L488


def test_search_and_lockpick(camp):
    ev = camp.execute(R.RollCheck(character="thor", kind="search", hidden={"coffre": 20, "clé": 50}),
                      faces=[69])[0].event
    assert ev.found == {"coffre": True, "clé": False}  # 69 < 50 + 40 − 20, not < 50 + 40 − 50 (I-L101)
    camp.execute(H.Carry(character="thor", item="Crochet", qty=1))  # a lock is picked with a crochet (I-L106)
    ev = camp.execute(R.RollCheck(character="thor", kind="lockpick", lock="complexes"), faces=[20])[0].event
    assert (ev.threshold, ev.success) == (20, True)  # (50 + 30)/2 − 20, inclusive (I-L106)


def _fight(camp, *others):
    camp.execute(H.Carry(character="thor", item="Épée longue", qty=1))  # equip takes what is carried (I-L47-48)
    camp.execute(H.Equip(character="thor", slot="weapon", item="Épée longue"))
    camp.execute(F.StartFight(fight="gue", participants=("thor", "lysa", *others)))


def test_initiative_orders_and_leaves_out_50_or_less(camp):
    camp.execute(H.CreateCreature(character="gob", name="Gobelin", characteristics=dict(Fo=2, Dex=20, Vol=10, Vit=20, Adresse=45), pv=20))
    _fight(camp, "gob")
    ev = camp.execute(F.RollInitiative(fight="gue", maluses={"gob": 5}), faces=[10, 20, 25])[0].event
    assert [(e.character, e.score, e.acts) for e in ev.entries] == [
        ("thor", 100, True), ("lysa", 120, True), ("gob", 50, False)]  # [Dex + Vol + Dé100] − malus (I-L4-7)
    assert ev.order == ["lysa", "thor", "gob"]
    with pytest.raises(RuleError, match="scored 50 or less at initiative"):
        camp.execute(F.Attack(fight="gue", attacker="gob", target="thor"), faces=[10])


def test_attack_through_sr_and_rn_with_exploding_die(camp):
    camp.execute(H.CreateCreature(character="chef", name="Chef", characteristics=dict(Fo=3, Dex=45, Vol=10, Vit=25, Adresse=55),
                                  pv=60, rn=10, armour="Peau de bête informe"))
    _fight(camp, "chef")
    ev = camp.execute(F.Attack(fight="gue", attacker="thor", target="chef", hands=2), faces=[50, 6, 2])[0].event
    # face 50 → tronc (I-L312); 4 × 10 + (6 + 2, semi-open d6, I-L301) = 48; SR T 6 → 42; RN 10% → 37.8 → 38 (I-L281)
    assert (ev.zone, ev.damage, ev.sr, ev.pv_lost, ev.pv_after) == ("tronc", 48, 6, 38, 22)
    assert [r.faces for r in ev.power_rolls] == [(6, 2)]


def test_critical_head_hit_kills_and_a_destiny_point_cancels_it(camp):
    camp.execute(H.CreateCreature(character="chef", name="Chef", characteristics=dict(Fo=3, Dex=45, Vol=10, Vit=25, Adresse=55),
                                  pv=30, weapon="Stylet"))
    camp.execute(H.Carry(character="thor", item="Peau de bête épaisse", qty=1))
    camp.execute(H.Equip(character="thor", slot="armour", item="Peau de bête épaisse"))
    _fight(camp, "chef")
    ev = camp.execute(F.Attack(fight="gue", attacker="chef", target="thor"), faces=[2, 85, 6, 6, 5])[0].event
    # critical, zone rerolled 85 = tête (I-L308); helmet SR P 8 − 10 → 0 (I-L83); 30 + 17 = 47; RN 10% → 43
    assert (ev.critical, ev.zone, ev.sr, ev.pv_lost, ev.dead) == (True, "tête", 0, 43, True)
    assert ev.rider.name == "Hémorragie" and ev.rider.pv_per_turn == 3  # P critical: Fo PV a turn (I-L506)
    assert hero(camp, "thor").dead
    camp.execute(F.SpendDestiny(character="thor"))
    thor = hero(camp, "thor")
    assert (thor.dead, thor.pv, thor.destiny_points) == (False, 40, 1)  # I-L377
    with pytest.raises(RuleError, match="no death or lost limb"):
        camp.execute(F.SpendDestiny(character="thor"))


def test_limb_loss_on_a_non_humanoid(camp):
    legs = Body(anterior_left=1, anterior_right=1, posterior_left=1, posterior_right=1, tails=1)
    camp.execute(H.CreateCreature(character="loup", name="Loup", characteristics=dict(Fo=3, Dex=40, Vol=10, Vit=30, Adresse=50),
                                  pv=20, body=legs))
    _fight(camp, "loup")
    ev = camp.execute(F.Attack(fight="gue", attacker="thor", target="loup", hands=2), faces=[15, 3])[0].event
    # 11-20 = membres antérieurs droits (I-L640); 43 > 20 PV on a limb: 0 PV and the limb is lost (I-L318)
    assert (ev.zone, ev.pv_after, ev.limb_lost, ev.dead) == ("membres antérieurs droits", 0, "membres antérieurs droits", False)


def test_unarmed_and_crossbow_damage(camp):
    camp.execute(H.CreateCreature(character="gob", name="Gob", characteristics=dict(Fo=2, Dex=20, Vol=10, Vit=20, Adresse=90), pv=99))
    _fight(camp, "gob")
    ev = camp.execute(F.Attack(fight="gue", attacker="thor", target="gob", weapon=""), faces=[50])[0].event
    assert ev.damage == 21  # [Fo × 5] + [FP] = 20 + 1 (I-L290)
    ev = camp.execute(F.Attack(fight="gue", attacker="gob", target="thor", weapon="Arbalète légère", hands=2,
                               distance=10), faces=[50])[0].event
    assert (ev.damage, ev.pv_lost) == (40, 36)  # fixed damage (I-L277), RN 10%


@pytest.mark.parametrize(("faces", "outcome", "pm_after"), [
    ([1, 7], "critical", 60),  # refund capped at the maximum (pm_refund_capped_at_max)
    ([50], "normal", 50),
    ([95, 3], "counter", 60),  # counter-effect from 95 at level 1 (I-L526); A4: no PM spent
], ids=["critical", "normal", "counter"])
def test_spell_launch(camp, faces, outcome, pm_after):
    ev = camp.execute(F.CastSpell(caster="lysa", spell="Embrasement", cast_level=1), faces=faces)[0].event
    assert ev.outcome == outcome
    if outcome == "critical":
        assert (ev.refund_pct, ev.refund_pm, ev.pm_after) == (120, 12, 60)  # [50 + 10 × 7]% of 10, capped (I-L525)
    else:
        assert ev.pm_after == pm_after


def test_critical_refund_after_a_first_spell_and_magic_damage(camp):
    _fight(camp)
    camp.execute(F.CastSpell(caster="lysa", spell="Embrasement", cast_level=1, fight="gue"), faces=[50])
    camp.execute(F.RollInitiative(fight="gue"), faces=[50, 50])  # a new turn: a new major action (I-L241)
    ev = camp.execute(F.CastSpell(caster="lysa", spell="Embrasement", cast_level=1, fight="gue", target="thor",
                                  damage=30), faces=[1, 7])[0].event
    assert (ev.pm_after, ev.pp_gained, ev.effective_level) == (50 - 10 + 12, 1, 2)  # I-L198, I-L525
    assert (ev.pv_lost, ev.pv_after) == (18, 22)  # 30 reduced by Vol 40% (I-L437)
    # Lysa cannot even have learned Jet de lave (min level 4 > Yarlysy 1, TX-05, TX-20): an unlearned spell
    # is not cast (I-L17, I-L443)
    with pytest.raises(RuleError, match="has not learned the spell Jet de lave"):
        camp.execute(F.CastSpell(caster="lysa", spell="Jet de lave", cast_level=4), faces=[50])


def test_an_evening_at_the_tavern(camp):
    # thresholds of Thor: G = 60/25 = 2.4, T = G + 40/15, Ti = T + (4 + 8)/4 (I-L126-129)
    camp.execute(T.Drink(character="thor", beverage="Bière"))
    ev = camp.execute(T.Drink(character="thor", beverage="Eau-de-vie"), faces=[3])[0].event
    assert (ev.after.alc, ev.after.band) == (5, "gaiete")
    assert [(h.alc, h.result, h.action) for h in ev.happenings if h.kind == "event_die"] == [(2.4, 3, "Aucune")]
    ev = camp.execute(T.Drink(character="thor", beverage="Eau-de-vie"), faces=[7, 13, 2])[0].event
    assert (ev.after.alc, ev.after.band, ev.after.alc_min) == (9, "titubage", -1)  # minimum lowered (I-L124)
    # one event die every 3 Alc from G: 5.4 (Troublitude, d12) and 8.4 (Titubage, d20); 13 asks a d4 (I-L138-153)
    dice = [(h.band, h.result, h.nearest) for h in ev.happenings if h.kind == "event_die"]
    assert dice == [("troublitude", 7, 0), ("titubage", 13, 2)]
    ev = camp.execute(T.PassTime(minutes=100))[0].event
    assert [(s.character, s.after.alc, s.after.carry_minutes) for s in ev.sobering] == [("thor", 7, 10)]  # −1 per 45 min
    with pytest.raises(RuleError, match="The Alc of a Chouchen is not set in this campaign's content pack"):
        camp.execute(T.Drink(character="thor", beverage="Chouchen"))


def test_money_trade_and_correction(stored):
    stored.execute(H.ChangeMoney(character="thor", amount_c=5000, reason="prime"))
    ev = stored.execute(H.Trade(character="thor", item="Cotte de mailles", piece="cuirasse"))[0].event
    assert ev.amount_c == -3600  # the cuirasse alone: 40% of 9000'C (I-L79, TX-15)
    ev = stored.execute(H.Trade(character="thor", item="Cotte de mailles", piece="cuirasse", sell=True))[0].event
    assert (ev.reference_c, ev.amount_c) == (900, 900)  # 25% of the new price (I-L26)
    with pytest.raises(RuleError, match="Thor does not carry Épée longue."):
        stored.execute(H.Trade(character="thor", item="Épée longue", sell=True))
    recs = stored.execute(H.ChangeMoney(character="thor", amount_c=1000, reason="prime"))
    stored.correct(recs[0].position, "erreur de saisie", {"amount": 100})
    assert hero(stored, "thor").copper == 5000 - 3600 + 900 + 100


def test_replay_equals_incremental_fold(stored):
    _fight(stored)
    stored.execute(F.CastSpell(caster="lysa", spell="Embrasement", cast_level=1, fight="gue"), faces=[1, 7])
    fresh = Campaign.open(stored.store.conn.execute("PRAGMA database_list").fetchone()[2])
    assert fresh.state().rules == stored.state().rules
    fresh.close()


def test_an_ended_fight_leaves_the_state_and_refuses_further_blows(camp):
    _fight(camp)
    camp.execute(F.EndFight(fight="gue"))
    assert "gue" not in camp.state().rules.fights
    refused(camp, F.Attack(fight="gue", attacker="thor", target="lysa"), "No fight named 'gue' is under way.",
            exc=UnknownEntity, faces=[10])


def test_lockpicking_needs_a_crochet_and_honours_time_attempts_and_backlash(camp):
    """I-L106: with a crochet, Dé100 ≤ (Dex + Sav)/2 − Malus; I-L108: each lock type's time, maximum
    attempts and backlash on a failure (the EXAMPLE pack's values: complexes 5 min, −20, 3 attempts, the
    crochet breaks; magiques 10 min, −60, 1 attempt, a mana discharge of 10 PV)."""
    refused(camp, R.RollCheck(character="thor", kind="lockpick", lock="complexes"),
            "Thor has no crochet; a lock is picked with one (I-L106).")
    camp.execute(H.Carry(character="thor", item="Crochet", qty=3))
    ev = camp.execute(R.RollCheck(character="thor", kind="lockpick", lock="complexes", lock_name="coffre"),
                      faces=[21])[0].event
    assert (ev.threshold, ev.success, ev.attempt, ev.minutes, ev.pick_broken) == (20, False, 1, 5, True)
    assert hero(camp, "thor").items["Crochet"] == 2 and camp.state().rules.clock == 5  # the crochet broke
    for face in (30, 40):
        camp.execute(R.RollCheck(character="thor", kind="lockpick", lock="complexes", lock_name="coffre"), faces=[face])
    assert hero(camp, "thor").items.get("Crochet", 0) == 0
    camp.execute(H.Carry(character="thor", item="Crochet", qty=1))
    refused(camp, R.RollCheck(character="thor", kind="lockpick", lock="complexes", lock_name="coffre"),
            "Thor has made the 3 attempts a lock complexes allows on coffre (I-L108).")
    ev = camp.execute(R.RollCheck(character="thor", kind="lockpick", lock="magiques", lock_name="grimoire"),
                      faces=[50])[0].event  # (50 + 30)/2 − 60 = −20: failed, the discharge hits
    assert (ev.success, ev.backlash, ev.pv_lost, hero(camp, "thor").pv) == (False, "Décharge de mana : 10 PV", 10, 30)
    refused(camp, R.RollCheck(character="thor", kind="lockpick", lock="magiques", lock_name="grimoire"),
            "Thor has made the 1 attempts a lock magiques allows on grimoire (I-L108).")


def test_a_weapon_mastery_at_100_unlocks_another_chosen_at_50(camp):
    """I-L491: each time a weapon mastery reaches 100%, another one, chosen, is unlocked at 50%."""
    camp.execute(H.AwardXp(character="thor", amount=5000, reason="la guerre"))
    camp.execute(H.BuyXp(character="thor", kind="skill", target="Maîtrise des épées", value=99))
    refused(camp, H.BuyXp(character="thor", kind="skill", target="Maîtrise des épées", value=100),
            "Maîtrise des épées reaches 100%: choose the weapon mastery it unlocks at 50% (Maîtrise des arcs) (I-L491).")
    refused(camp, H.BuyXp(character="thor", kind="skill", target="Maîtrise des épées", value=100, unlock="Esquive"),
            "Esquive cannot be unlocked at 50%; choose one of Maîtrise des arcs (I-L491).")
    ev = camp.execute(H.BuyXp(character="thor", kind="skill", target="Maîtrise des épées", value=100,
                              unlock="Maîtrise des arcs"))[0].event
    assert ev.unlocked == "Maîtrise des arcs"
    arcs = hero(camp, "thor").skills["Maîtrise des arcs"]
    assert (arcs.pct, arcs.rank) == (50, 1)  # unlocked at 50% (I-L491), no xp paid for it
    refused(camp, H.BuyXp(character="thor", kind="skill", target="Esquive", value=10, unlock="Maîtrise des arcs"),
            "Only a weapon mastery raised to 100% unlocks another one (I-L491).")
