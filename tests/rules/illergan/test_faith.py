"""Faith decided by the rules (tests/harness.py): PF per day, divine powers, the Harmonisation and bonus faith points.

Vectors: PF-1/PF-2 (I-L594-595), PD-1/PD-2 (I-L607-609), HAR-1/HAR-2 (I-L531, I-L540) of the
catalogue's Part B.2. The PD lists and their PF costs are the EXAMPLE pack's (the text has none).
"""

from __future__ import annotations

import msgspec
import pytest
from harness import Table
from helpers import refused

from cristal_events.errors import RuleError
from cristal_events.rulesets.illergan import faith as P
from cristal_events.rulesets.illergan import fights as F
from cristal_events.rulesets.illergan import heroes as H
from cristal_events.rulesets.illergan.character import Choices
from cristal_events.rulesets.illergan.content import example_pack

STATS = dict(Fo=3, Dex=40, Vit=40, Vol=50, Mana=30, E=10, Cha=40, Sav=40, Dep=5, Agilité=30, Adresse=40)


def faithful(cid, cls, **kw):
    return H.CreateHero(character=cid, choices=Choices(name=cid.capitalize(), race="Humain", class_name=cls,
                                                       heritage="Enfant des rues", cult="Vikasar", **kw),
                        characteristics=STATS, pv=30, pm=0, rn=0, gift_face=1)


@pytest.fixture
def camp():
    c = Table(name="Foi", ruleset="illergan", seed=9)
    c.execute(H.LoadPack(name="example", data=msgspec.to_builtins(example_pack())))
    c.execute(faithful("anselme", "Prêtre", magics=("Yarlysy",)))
    c.execute(faithful("bertrand", "Inquisiteur"))
    c.execute(H.CreateHero(character="thor", choices=Choices(name="Thor", race="Humain", class_name="Guerrier",
                                                             heritage="Enfant des rues"),
                           characteristics=STATS, pv=40, pm=0, rn=0, gift_face=1))
    return c


def hero(c, cid):
    return c.state().rules.characters[cid]




def test_pf_per_day_by_class_and_level(camp):
    assert (hero(camp, "anselme").pf_per_day, hero(camp, "anselme").pf) == (8, 8)  # PF-1: 5 + 3 × 1 (I-L594)
    assert hero(camp, "bertrand").pf_per_day == 2  # PF-2: 2 × 1 (I-L595)
    camp.execute(H.AwardXp(character="anselme", amount=100, reason="pèlerinage"))
    camp.execute(H.BuyXp(character="anselme", kind="faith"))
    assert (hero(camp, "anselme").faith_level, hero(camp, "anselme").pf_per_day) == (2, 11)  # PF-1: 5 + 3 × 2
    camp.execute(H.BuyXp(character="anselme", kind="faith", heritage=True))
    assert hero(camp, "anselme").pf == 8  # the new level's PF come with the next Harmonisation (I-L531)
    camp.execute(P.Harmonise(character="anselme", at="19:30"))
    assert hero(camp, "anselme").pf == 14  # 5 + 3 × 3
    # PD-2: faith level 3 casts a level 2 PD at level 2 or 3, not 4 (I-L609)
    for level, cost in ((2, 4), (3, 6)):
        assert camp.execute(P.InvokePower(character="anselme", power="Bouclier de foi", cast_level=level))[0].event.cost == cost
    refused(camp, P.InvokePower(character="anselme", power="Bouclier de foi", cast_level=4),
            "A level 2 divine power can be cast at levels 2 to 3 with faith level 3 (I-L609), not at level 4.")


def test_a_divine_power_costs_pf_and_bonus_points_pay_beyond(camp):
    ev = camp.execute(P.InvokePower(character="anselme", power="Main apaisante", cast_level=1))[0].event
    assert (ev.cost, ev.pf_after) == (2, 6)
    refused(camp, P.InvokePower(character="anselme", power="Main apaisante", cast_level=2),
            "A level 1 divine power can be cast at levels 1 to 1 with faith level 1 (I-L609), not at level 2.")
    refused(camp, P.InvokePower(character="anselme", power="Bouclier de foi", cast_level=2),
            "Bouclier de foi is a level 2 divine power; Anselme has faith level 1 (I-L335).")
    camp.execute(P.AdjustFaith(character="anselme", pfb=3, reason="a veillé les morts"))  # I-L597
    ev = camp.execute(P.InvokePower(character="anselme", power="Main apaisante", cast_level=1, from_pfb=2))[0].event
    assert (ev.from_pfb, ev.pf_after, ev.pfb_after) == (2, 6, 1)  # A40: the player says what the PFb pay
    refused(camp, P.InvokePower(character="anselme", power="Main apaisante", cast_level=1),
            "Say how many of the cost's faith points come from the bonus points (PFb).")
    refused(camp, P.AdjustFaith(character="anselme", pf=2, reason="x"),
            "The game master may take PF for impious acts, never give them; give PFb instead (I-L597).")
    refused(camp, P.InvokePower(character="thor", power="Main apaisante", cast_level=1), "Thor follows no cult (I-L333).")


@pytest.mark.parametrize(("caster", "target", "distance", "ok"), [
    ("bertrand", "anselme", 5, True),    # PD-1: level 1 → 5 m, same cult
    ("bertrand", "anselme", 6, False),   # beyond [5 × niveau de foi] m
    ("bertrand", "thor", 1, False),      # not a faithful of Vikasar
    ("anselme", "thor", 5, True),        # a Prêtre may target anyone in range (I-L607)
], ids=["same-cult-5m", "too-far", "not-faithful", "pretre-anyone"])
def test_pd_targets(camp, caster, target, distance, ok):
    camp.execute(P.AdjustFaith(character="bertrand", pfb=5, reason="croisade"))
    cmd = P.InvokePower(character=caster, power="Regard du juste", cast_level=1, target=target, distance=distance,
                        from_pfb=0)
    if ok:
        assert camp.execute(cmd)[0].event.target == target
    else:
        who = "a faithful of the Vikasar cult"
        refused(camp, cmd, f"{hero(camp, caster).name} can cast Regard du juste on himself or on {who} within 5 m (I-L607).")


@pytest.mark.parametrize(("at", "ok"), [("19:40", True), ("20:10", False), ("19:00", True), ("18:59", False)],
                         ids=["HAR-1", "HAR-2", "on-the-hour", "a-minute-early"])
def test_harmonisation_window(camp, at, ok):
    camp.execute(P.InvokePower(character="anselme", power="Main apaisante", cast_level=1))
    cmd = P.Harmonise(character="anselme", at=at)
    if ok:
        assert camp.execute(cmd)[0].event.pf_after == 8  # all the PF come back (I-L531)
    else:
        refused(camp, cmd, f"The Vikasar Harmonisation starts at 19:00; a prayer at {at} is outside its hour and "
                           "brings no PF back (I-L531).")


def test_bonus_points_survive_the_harmonisation(camp):
    camp.execute(P.AdjustFaith(character="anselme", pfb=2, reason="aumône"))
    camp.execute(P.InvokePower(character="anselme", power="Main apaisante", cast_level=1, from_pfb=0))
    camp.execute(P.Harmonise(character="anselme", at="19:05"))
    assert (hero(camp, "anselme").pf, hero(camp, "anselme").pfb) == (8, 2)  # PFb do not regenerate, nor vanish
    refused(camp, P.Harmonise(character="anselme", at="19:10"), "Anselme already has all 8 PF of the day.")


def test_in_a_fight_a_pd_is_a_minor_action_once_a_turn(camp):
    camp.execute(F.StartFight(fight="f", participants=("anselme", "thor")))
    ev = camp.execute(P.InvokePower(character="anselme", power="Main apaisante", cast_level=1, fight="f"))[0].event
    assert ev.turn_after.budget.minor == 0 and ev.turn_after.pds == ("Main apaisante",)  # I-L605
    camp.execute(F.TakeAction(fight="f", character="anselme", action="forgo_major"))
    refused(camp, P.InvokePower(character="anselme", power="Main apaisante", cast_level=1, fight="f"),
            "Anselme already used Main apaisante this turn (I-L605).")
    camp.execute(P.InvokePower(character="anselme", power="Regard du juste", cast_level=1, fight="f"))
    refused(camp, P.InvokePower(character="anselme", power="Main apaisante", cast_level=1, fight="f", in_defence=True),
            "The divine power Main apaisante is already used in that turn (I-L605).")
    camp.execute(F.TakeAction(fight="f", character="anselme", action="minor", what="se relever"))
    # in defence with no minor action left: the next turn's, and the PD counts in that turn (I-L605)
    ev = camp.execute(P.InvokePower(character="anselme", power="Main apaisante", cast_level=1, fight="f",
                                    in_defence=True))[0].event
    assert (ev.turn_after.owed_minor, ev.turn_after.owed_pds, ev.pf_after) == (1, ("Main apaisante",), 3)
    camp.execute(F.RollInitiative(fight="f"), faces=[50, 50])
    t = camp.state().rules.fights["f"].turns["anselme"]
    assert (t.budget.major, t.budget.minor, t.pds) == (1, 0, ("Main apaisante",))
    refused(camp, P.InvokePower(character="anselme", power="Main apaisante", cast_level=1, fight="f"),
            "Anselme: No minor action is left this turn (I-L241).")


def test_the_sheet_shows_faith(camp):
    from cristal_events.rulesets.illergan.settings import DEFAULT
    from cristal_events.rulesets.illergan.sheet import sheet
    from cristal_events.rulesets.illergan.state import content_of

    world = camp.state()
    data = sheet(world.rules.characters["anselme"], content_of(world.rules), DEFAULT)
    assert (data["pf"], data["pf_per_day"], data["pfb"]) == (8, 8, 0)
    assert data["divine_powers"] == ["Main apaisante", "Regard du juste"]  # level ≤ faith level (I-L335)


def test_a_table_may_renew_faith_at_each_new_day():
    c = Table(name="Jour", ruleset="illergan", seed=1, settings={"faith_renewal": "new_day"})
    c.execute(H.LoadPack(name="example", data=msgspec.to_builtins(example_pack())))
    c.execute(faithful("anselme", "Prêtre", magics=("Yarlysy",)))
    c.execute(P.InvokePower(character="anselme", power="Main apaisante", cast_level=1))
    assert c.execute(P.Harmonise(character="anselme"))[0].event.pf_after == 8  # no prayer hour asked
    with pytest.raises(RuleError, match=r"^Give the time Anselme starts the prayer \(the Vikasar Harmonisation, I-L531\)\.$"):
        camp = Table(name="Heure", ruleset="illergan", seed=1)
        camp.execute(H.LoadPack(name="example", data=msgspec.to_builtins(example_pack())))
        camp.execute(faithful("anselme", "Prêtre", magics=("Yarlysy",)))
        camp.execute(P.InvokePower(character="anselme", power="Main apaisante", cast_level=1))
        camp.execute(P.Harmonise(character="anselme"))


def test_one_harmonisation_a_day_on_the_logs_clock(camp):
    """I-L531: every day at the same hour, within one hour of it; the log's clock (wait) tells the day."""
    from cristal_events.rulesets.illergan import tavern as T

    camp.execute(P.InvokePower(character="anselme", power="Main apaisante", cast_level=1))
    assert camp.execute(P.Harmonise(character="anselme", at="19:05"))[0].event.pf_after == 8
    camp.execute(P.InvokePower(character="anselme", power="Main apaisante", cast_level=1))
    camp.execute(T.PassTime(minutes=30))
    refused(camp, P.Harmonise(character="anselme", at="19:35"),
            "Anselme already renewed the PF 30 minutes ago on the log's clock; one Harmonisation a day (I-L531): "
            "the next one is 1350 minutes away (wait).")
    camp.execute(T.PassTime(minutes=1350))  # 23 h after the 19:05 prayer: the next day's hour (I-L531)
    assert camp.execute(P.Harmonise(character="anselme", at="19:00"))[0].event.pf_after == 8
    assert camp.state().rules.clock == 1380


# ---------------------------------------------------------------- cults: changing, combining, learning (I-L571-611)
def _level(camp, cid, n):
    camp.execute(H.AwardXp(character=cid, amount=1000, reason="pèlerinage"))
    for _ in range(n - hero(camp, cid).faith_level):
        camp.execute(H.BuyXp(character=cid, kind="faith"))


@pytest.mark.parametrize(("level", "cond", "fallback", "new"), [(3, "gt2", 1, 2), (2, "gt2", 1, 1), (2, "ge2", 1, 2),
                                                                 (2, "gt2", 0, 0)],
                         ids=["passed-level-2", "at-level-2", "ge2-reading", "fallback-0"])
def test_a_religious_class_changing_cult_starts_at_2_if_it_passed_that_level(level, cond, fallback, new):
    c = Table(name="Foi", ruleset="illergan", seed=9, settings={"cult_change_condition": cond,
                                                                 "cult_change_fallback_level": fallback})
    c.execute(H.LoadPack(name="example", data=msgspec.to_builtins(example_pack())))
    c.execute(faithful("anselme", "Prêtre", magics=("Yarlysy",)))
    _level(c, "anselme", level)
    ev = c.execute(P.ChangeCult(character="anselme", cult="Dieu ailé", reason="une vision"))[0].event
    assert (ev.former, ev.former_level, ev.faith_level) == ("Vikasar", level, new)  # I-L571, A38
    h = hero(c, "anselme")
    assert (h.cult, h.faith_level, h.pf_per_day, h.pf, h.former_cults) == ("Dieu ailé", new, 5 + 3 * new, 0, ("Vikasar",))


def test_a_non_religious_class_changes_cult_at_level_0_and_only_an_ancetres_worshipper_combines(camp):
    camp.execute(P.ChangeCult(character="thor", cult="Ancêtres"))  # a first cult chosen in play: level 0 (I-L578)
    assert (hero(camp, "thor").cult, hero(camp, "thor").faith_level) == ("Ancêtres", 0)
    ev = camp.execute(P.ChangeCult(character="thor", cult="Vikasar", add=True))[0].event
    assert (ev.added, ev.faith_level) == (True, 0)  # added at level 0, the Ancêtres kept (I-L582)
    assert (hero(camp, "thor").cult, hero(camp, "thor").added_cult) == ("Ancêtres", "Vikasar")
    refused(camp, P.ChangeCult(character="thor", cult="Dieu ailé", add=True),
            "An Ancêtres worshipper may add one new cult only (I-L573).")
    camp.execute(H.AwardXp(character="thor", amount=500, reason="pèlerinage"))
    ev = camp.execute(H.BuyXp(character="thor", kind="faith", target="Vikasar"))[0].event
    assert (ev.from_value, ev.to_value, hero(camp, "thor").added_faith_level, hero(camp, "thor").faith_level) == (
        0, 1, 1, 0)  # the added cult's level, at the non-religious costs (I-L573); the Ancêtres' unchanged
    refused(camp, H.BuyXp(character="thor", kind="faith", target="Dieu ailé"),
            "Thor does not worship the Dieu ailé (I-L571-573).")
    refused(camp, P.InvokePower(character="thor", power="Bouclier de foi", cast_level=2),
            "Bouclier de foi is a level 2 divine power; Thor has faith level 1 (I-L335).")  # Vikasar level 1
    refused(camp, P.ChangeCult(character="bertrand", cult="Dieu ailé", add=True),
            "Only characters who first worshipped the Ancêtres may add a second cult (I-L573).")
    ev = camp.execute(P.ChangeCult(character="bertrand", cult="Ancêtres"))[0].event
    assert ev.faith_level == 1  # an Inquisiteur at level 1 has not passed level 2: the fallback 1 (A38)
    refused(camp, P.ChangeCult(character="bertrand", cult="Vikasar", add=True),
            "Only characters who first worshipped the Ancêtres may add a second cult (I-L573).")  # he changed


def test_learning_a_divine_power_from_a_book_or_a_level_6_faithful(camp):
    camp.execute(P.ChangeCult(character="bertrand", cult="Ancêtres"))
    c = camp
    refused(c, P.InvokePower(character="bertrand", power="Main apaisante", cast_level=1),
            "Main apaisante is a divine power of the Vikasar cult, not of Bertrand's Ancêtres (I-L603).")
    refused(c, P.LearnPower(character="bertrand", power="Main apaisante", teacher_level=5),
            "A divine power is taught by a faithful of level 6 or more, not 5 (I-L611).")
    refused(c, P.LearnPower(character="bertrand", power="Bouclier de foi", from_book=True),
            "Bouclier de foi is a level 2 divine power; Bertrand has unlocked faith level 1 only (I-L611).")
    refused(c, P.LearnPower(character="anselme", power="Main apaisante", from_book=True),
            "Anselme already masters Main apaisante (I-L335).")
    ev = c.execute(P.LearnPower(character="bertrand", power="Main apaisante", teacher_level=6))[0].event
    assert (ev.power, ev.level) == ("Main apaisante", 1)
    c.execute(P.Harmonise(character="bertrand", at="16:10"))  # the Ancêtres' hour (I-L533)
    assert c.execute(P.InvokePower(character="bertrand", power="Main apaisante", cast_level=1))[0].event.cost == 2
