"""Issue 17 items 12 and 17: the setting `sense_range_capped_by_cast_range` decides a cast heard or smelt
beyond [5 + E] m (I-L10-15, I-L161-162); in flight all the movement is used each turn unless a bonus allows
hovering (I-L564), and a flyer held from the ground lands at the end of his turn (I-L565)."""

from __future__ import annotations

from helpers import refused

from cristal_events.rulesets.illergan import fights as F
from cristal_events.rulesets.illergan import heroes as H
from cristal_events.rulesets.illergan.locations import Body
from rules.illergan.test_casting import _table, cast
from rules.illergan.test_combat_issue17 import GOB, table


# ---------------------------------------------------------------- item 12: sense range and cast range
def test_heard_target_beyond_five_plus_e_is_refused_when_capped():
    # Lysa: E 12, cast range [5 + E] = 17 m (I-L161); an elf hears at 50%: [5 + 0,25 × 50] = 17.5 m (I-L12)
    camp = _table(settings={"sense_range_capped_by_cast_range": True})
    refused(camp, cast(target="thor", sense="hearing", distance=17.5), "A target located by hearing can be "
            "reached at 17 m at most (I-L10-15, I-L161), not at 17.5 m.", faces=[50])
    assert camp.execute(cast(target="thor", sense="hearing", distance=17), faces=[50])[0].event.reach == 17


def test_heard_target_at_the_sense_range_is_reached_when_not_capped():
    camp = _table(settings={"sense_range_capped_by_cast_range": False})
    ev = camp.execute(cast(target="thor", sense="hearing", distance=17.5), faces=[50])[0].event
    assert (ev.reach, ev.sense, ev.outcome) == (17.5, "hearing", "normal")  # 5 + 0,25 × 50 (I-L12)
    refused(camp, cast(target="thor", sense="hearing", distance=18), "A target located by hearing can be "
            "reached at 17.5 m at most (I-L10-15, I-L161), not at 18 m.", faces=[50])
    # seen, the range stays [5 + E] = 17 m whatever the setting (I-L161)
    refused(camp, cast(target="thor", distance=17.5), "A target located by sight can be reached at 17 m at most "
            "(I-L10-15, I-L161), not at 17.5 m.", faces=[50])


# ---------------------------------------------------------------- item 17: flight at the end of a turn
def _sky(**settings):
    c = table(**settings)
    c.execute(H.CreateCreature(character="aigle", name="Aigle", characteristics=dict(GOB, Dex=40, Dep=10), pv=30,
                               body=Body(wings_left=1, wings_right=1)))
    c.execute(F.EndFight(fight="gue"))
    c.execute(F.StartFight(fight="gue", participants=("thor", "aigle")))
    c.execute(F.RollInitiative(fight="gue"), faces=[50, 50])
    return c


def aigle(c):
    return c.state().rules.characters["aigle"]


def test_a_flyer_must_use_all_his_movement_before_the_turn_ends():
    c = _sky()
    assert c.execute(F.Fly(fight="gue", character="aigle"), faces=[30])[0].event.left_after_m == 20  # 10 doubled (I-L558)
    assert c.execute(F.Move(fight="gue", character="aigle", metres=15))[0].event.left_m == 5
    refused(c, F.RollInitiative(fight="gue"), "Aigle flies and must use all his movement this turn (I-L564): 5 m "
            "left; move them (combat move) or land first.", faces=[50, 50])
    c.execute(F.Move(fight="gue", character="aigle", metres=3, u_turns=1))  # 3 + 2 for the U-turn (I-L564)
    c.execute(F.RollInitiative(fight="gue"), faces=[50, 50])
    # next turn: Dep(en vol) = 2 × 10 = 20 m (I-L560), all of it again
    refused(c, F.RollInitiative(fight="gue"), "Aigle flies and must use all his movement this turn (I-L564): 20 m "
            "left; move them (combat move) or land first.", faces=[50, 50])
    c.execute(F.Fly(fight="gue", character="aigle", land=True))
    c.execute(F.RollInitiative(fight="gue"), faces=[50, 50])  # landed: the ground's Dep need not be used


def test_a_hovering_bonus_lifts_the_obligation():
    c = _sky()
    refused(c, F.Fly(fight="gue", character="aigle", hover=" "), "Stationary flight needs a bonus that allows it "
            "(I-L564): name it (--hover).", faces=[30])
    ev = c.execute(F.Fly(fight="gue", character="aigle", hover="Plume du colibri"), faces=[30])[0].event
    assert (ev.hover, ev.left_after_m) == (True, 20)
    assert {"en vol", "vol stationnaire"} <= set(aigle(c).conditions)
    c.execute(F.RollInitiative(fight="gue"), faces=[50, 50])  # 20 m unused, hovering (I-L564)
    assert "vol stationnaire" in aigle(c).conditions


def test_a_held_flyer_lands_at_the_end_of_his_turn():
    c = _sky()
    refused(c, F.Fly(fight="gue", character="aigle", held="thor"), "Aigle is not flying: only a flyer is held from the "
            "ground (I-L565).")
    c.execute(F.Fly(fight="gue", character="aigle"), faces=[30])
    c.execute(F.Move(fight="gue", character="aigle", metres=4))
    refused(c, F.Fly(fight="gue", character="aigle", held="aigle"), "The flyer is held by another combatant of the "
            "fight, not 'aigle' (I-L565).")
    ev = c.execute(F.Fly(fight="gue", character="aigle", held="thor"))[0].event  # Thor on the ground holds it
    assert (ev.flying, ev.held, ev.held_by) == (True, True, "thor") and "retenu au sol" in aigle(c).conditions
    refused(c, F.Fly(fight="gue", character="aigle", held="thor"), "Aigle is already held: he lands at the end of his "
            "turn (I-L565).")
    # 16 m unused: he cannot get away, so no obligation; the turn ends with the forced landing (I-L565)
    out = c.execute(F.RollInitiative(fight="gue"), faces=[50, 50])
    landing = out[0].event
    assert (type(landing).__name__, landing.character, landing.flying, landing.forced) == ("FlightChanged", "aigle",
                                                                                           False, True)
    assert not {"en vol", "retenu au sol"} & set(aigle(c).conditions)
    assert c.execute(F.Move(fight="gue", character="aigle", metres=1))[0].event.available_m == 10  # the ground's Dep


def test_a_kept_initiative_also_ends_the_turn_for_the_flyers():
    c = _sky(initiative_reroll_each_turn=False)  # the order of the first turn is kept (A1)
    c.execute(F.Fly(fight="gue", character="aigle"), faces=[30])  # 20 m (I-L558)
    c.execute(F.Move(fight="gue", character="aigle", metres=19))
    refused(c, F.RollInitiative(fight="gue"), "Aigle flies and must use all his movement this turn (I-L564): 1 m "
            "left; move them (combat move) or land first.")
    c.execute(F.Fly(fight="gue", character="aigle", held="thor"))
    out = [r.event for r in c.execute(F.RollInitiative(fight="gue"))]
    assert [type(e).__name__ for e in out] == ["FlightChanged", "InitiativeRolled"] and out[0].forced
    assert out[1].kept and "en vol" not in aigle(c).conditions  # I-L565
