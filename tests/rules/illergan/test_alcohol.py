"""Alcohol: Part B.2 vectors ALC-1 .. ALC-9 (character A: Vit 100, Vol 45, Fo 4, E 8)."""

from fractions import Fraction

import pytest

from cristal_events.dice import Dice
from cristal_events.errors import RuleError
from cristal_events.rulesets.illergan import alcohol
from cristal_events.rulesets.illergan.alcohol import Drink, Wait
from cristal_events.rulesets.illergan.settings import IllerganSettings

TH_A = alcohol.thresholds(vit=100, vol=45, fo=4, e=8)


def test_alc1_thresholds():  # I-L126-129
    assert (TH_A.gaiete, TH_A.troublitude, TH_A.titubage, TH_A.oubli) == (4, 7, 10, 17)


@pytest.mark.parametrize("alc, band", [(3, None), (4, "gaiete"), (6, "gaiete"), (7, "troublitude"), (9, "troublitude"),
                                       (10, "titubage"), (16, "titubage"), (17, "oubli"), (40, "oubli")],
                         ids=lambda v: str(v))
def test_alc2_bands(alc, band):  # I-L136
    assert alcohol.band(alc, TH_A) == band


def test_alc2_effects():  # I-L131-134
    base = {"Fo": 4, "Vol": 45, "Dex": 50, "Cha": 40, "Sav": 30, "Dep": 8, "Mana": 30, "Acuité visuelle": 60}
    tit = alcohol.affected(base, "titubage")
    assert (tit["Fo"], tit["Vol"], tit["Dex"], tit["Mana"], tit["Dep"], tit["Acuité visuelle"]) == (1, 40, 10, 15, 4, 20)
    oub = alcohol.affected(base, "oubli")
    assert (oub["Fo"], oub["Vol"], oub["Dex"], oub["Mana"], oub["Sav"]) == (6, 35, -10, 10, -30)
    assert alcohol.EFFECTS["oubli"].spell_level == 1
    tr = alcohol.affected(base, "troublitude")
    assert (tr["Dep"], tr["Sav"]) == (6, 10)
    assert alcohol.affected(base, None) == base


def test_alc3_exact_and_rounded():  # A25
    th = alcohol.thresholds(vit=60, vol=20, fo=3, e=2)
    assert (th.gaiete, th.troublitude) == (Fraction(12, 5), Fraction(56, 15))
    assert th.oubli == Fraction(56, 15) + Fraction(5, 4) + 7
    thf = alcohol.thresholds(vit=60, vol=20, fo=3, e=2, settings=IllerganSettings(alc_threshold_rounding="floor"))
    assert (thf.gaiete, thf.troublitude, thf.titubage, thf.oubli) == (2, 3, 4, 11)


def test_alc4_event_dice_and_alc5_minimum(core):  # I-L138-142
    faces = [3, 5, 11, 13, 2, 18, 20]  # 13 on a d20 asks for a Dé4 (I-L153)
    ev = alcohol.evening(alcohol.start(0), [Drink(alc=19)], TH_A, Dice.entered(faces), core)
    dice_events = [e for e in ev.events if e.kind == "event_die"]
    assert [e.alc for e in dice_events] == [4, 7, 10, 13, 16, 19]
    assert [e.rolls[0].expr for e in dice_events] == ["1d6", "1d12", "1d20", "1d20", "1d20", "1d20+4"]
    assert [e.result for e in dice_events] == [3, 5, 11, 13, 18, 24]
    assert dice_events[3].nearest == 2
    assert dice_events[5].coma_hours == Fraction(19, 5)
    assert ev.states[-1].alc_min == -2  # ALC-5
    assert [e.band for e in ev.events if e.kind == "alc_min_lowered"] == ["titubage", "oubli"]


def test_alc4_anchor_switch(core):  # A26
    s = IllerganSettings(alc_event_anchor="G+3")
    ev = alcohol.evening(alcohol.start(0), [Drink(alc=9)], TH_A, Dice.entered([1]), core, settings=s)
    assert [e.alc for e in ev.events if e.kind == "event_die"] == [7]


def test_no_event_dice_while_falling(core):
    ev = alcohol.evening(alcohol.start(0), [Drink(alc=5), Wait(minutes=90)], TH_A, Dice.entered([1]), core)
    assert [e.kind for e in ev.events].count("event_die") == 1
    assert ev.states[-1].alc == 3


def test_alc6_decay(core):  # I-L123
    ev = alcohol.evening(alcohol.start(0), [Drink(alc=10), Wait(minutes=45)], Thresholds_high(), Dice.entered([]), core)
    assert ev.states[-1].alc == 9
    assert alcohol.minutes_to_rest(10, 0) == 450


def test_alc7_decay_to_negative_minimum(core):
    assert alcohol.minutes_to_rest(10, -2) == 540
    ev = alcohol.evening(alcohol.start(-2), [Drink(alc=12), Wait(minutes=30), Wait(minutes=15), Wait(minutes=600)],
                         Thresholds_high(), Dice.entered([]), core)
    assert [s.alc for s in ev.states] == [-2, 10, 10, 9, -2]


def Thresholds_high():
    """Thresholds no test drink reaches, to watch the decay alone."""
    return alcohol.Thresholds(gaiete=100, troublitude=101, titubage=102, oubli=109)


@pytest.mark.parametrize("acquired, background, counts, shift", [(6, -5, False, 0), (6, -5, True, 1), (10, 0, False, 1),
                                                                 (21, 0, False, 2)],
                         ids=["ALC-8-excl", "ALC-8-incl", "ALC-8-clear", "21"])
def test_alc8_shift(acquired, background, counts, shift):  # I-L124, A23
    s = IllerganSettings(alc_shift_counts_background=counts)
    assert alcohol.event_shift_max(acquired, background, s) == shift


def test_shift_beyond_limit_refused(core):
    with pytest.raises(RuleError, match="at most 0"):
        alcohol.evening(alcohol.start(0), [Drink(alc=5, shift=1)], TH_A, Dice.entered([1]), core)


@pytest.mark.parametrize("result, action", [(5, "Insulte légère"), (11, "Dénuement partiel"), (12, "Vomi (pendant 30s)"),
                                            (13, "Embrasse la [Dé4]ème personne la plus proche"),
                                            (20, "Agression (armée ou non)"), (1, "Aucune"), (30, "Coma éthylique pendant [Alc/5]h")],
                         ids=["d6-5", "d12-11", "d12-12", "d20-13", "d20-20", "1", "clamp-24"])
def test_alc9_event_lookup(core, result, action):  # I-L146-159
    assert alcohol.event_action(result, core)[0] == action


def test_alc9_coma_at_20():
    assert alcohol.coma_hours(20) == 4


def test_memory_loss_window(core):  # I-L134
    ev = alcohol.evening(alcohol.start(0), [Drink(alc=17), Wait(minutes=45 * 8)], TH_A, Dice.entered([1] * 5), core)
    assert [e.kind for e in ev.events][-1] == "memory_loss"
