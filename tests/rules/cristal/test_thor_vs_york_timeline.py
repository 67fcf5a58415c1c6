"""The book's Thor vs York fight (seed 000, L1296-L1313, catalogue TV-20), replayed with the pure IT timeline.

Each row: IT before (Thor, York), who acts (smallest IT), the action's duration, IT after, as printed.
York starts at IT 2 because the GM gives Thor the first attack (initiative method 1, L1296, L1317).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from cristal_events.dice import Dice
from cristal_events.errors import RuleError
from cristal_events.rounding import RoundingMode
from cristal_events.rulesets.cristal import combat as c
from cristal_events.rulesets.cristal import magic as m

Fighters = tuple[c.Combatant, ...]
Step = Callable[[Fighters, str, RoundingMode], Fighters]

BOULE_DE_FEU_TIME = 10  # L1306: "temps d'incantation de 10"
BOULE_DE_FEU_CNC = 16  # L1313


def act(seconds: Callable[[], int]) -> Step:
    return lambda fighters, name, mode: c.take_action(fighters, name, seconds())


def begin_boule_de_feu(fighters: Fighters, name: str, mode: RoundingMode) -> Fighters:
    durations = m.spell_durations(BOULE_DE_FEU_TIME, BOULE_DE_FEU_CNC, mode)
    return c.begin_spell(fighters, name, "Boule de Feu", durations)


def release(fighters: Fighters, name: str, mode: RoundingMode) -> Fighters:
    return c.complete_spell(fighters, name)


# (line, IT before (Thor, York), actor, step, duration, IT after (Thor, York))
BOOK: list[tuple[int, tuple[int, int], str, Step, int, tuple[int, int]]] = [
    (1300, (0, 2), "Thor", act(lambda: c.attack_duration(6)), 6, (6, 2)),  # long sword, IT 6
    (1301, (6, 2), "York", act(lambda: c.action_duration("chercher_ceinture", Dice.entered([3])).seconds), 3, (6, 5)),
    (1302, (6, 5), "York", act(lambda: c.attack_duration(4)), 4, (6, 9)),  # whip, IT 4
    (1303, (6, 9), "Thor", act(lambda: c.action_duration("marcher_5m").seconds), 5, (11, 9)),
    (1304, (11, 9), "York", act(lambda: c.action_duration("ramasser_item").seconds), 3, (11, 12)),  # GM: like picking up
    (1305, (11, 12), "Thor", act(lambda: c.action_duration("ouvrir_porte").seconds), 2, (13, 12)),
    (1306, (13, 12), "York", begin_boule_de_feu, 10, (13, 22)),  # incantation added when it starts (L1267)
    (1307, (13, 22), "Thor", act(lambda: c.action_duration("ouvrir_porte").seconds), 2, (15, 22)),  # GM: closing = opening
    (1308, (15, 22), "Thor", act(lambda: c.action_duration("chercher_sac", Dice.entered([2])).seconds), 6, (21, 22)),
    (1309, (21, 22), "Thor", act(lambda: c.action_duration("ouvrir_porte").seconds), 2, (23, 22)),
    (1310, (23, 22), "York", release, 8, (23, 30)),  # effects, then combustion 16 / 2 = 8 (L1313)
    (1311, (23, 30), "Thor", act(lambda: c.action_duration("courir_5m", times=2).seconds), 2, (25, 30)),  # 10 m run
]


def replay(mode: RoundingMode) -> list[tuple[int, tuple[int, int], str, int, tuple[int, int]]]:
    """Run the fight from the start; return (line, before, actor, duration, after) for every row."""
    fighters: Fighters = (c.Combatant(name="Thor", it=0), c.Combatant(name="York", it=2))
    rows = []
    for line, _, chosen, step, _, _ in BOOK:
        before = (fighters[0].it, fighters[1].it)
        actor = c.next_actor(fighters)
        fighters = step(fighters, chosen, mode)
        after = (fighters[0].it, fighters[1].it)
        rows.append((line, before, actor, sum(after) - sum(before), after))
    return rows


@pytest.mark.parametrize("mode", ["round", "truncate"])
@pytest.mark.parametrize("index", range(len(BOOK)), ids=[f"L{row[0]}" for row in BOOK])
def test_row_matches_the_book(mode, index):
    line, before, actor, _, duration, after = BOOK[index]
    assert replay(mode)[index] == (line, before, actor, duration, after)


def test_thor_acts_three_times_while_york_incants():
    # L1307-L1309: York is locked until IT 22, so Thor keeps the smallest IT for three actions.
    actors = [row[2] for row in replay("round")]
    assert actors[7:10] == ["Thor", "Thor", "Thor"]


def test_the_incanting_mage_can_do_nothing_else():
    # L962, L1282: between the start and the combustion York can take no other action.
    fighters: Fighters = (c.Combatant(name="Thor", it=23), c.Combatant(name="York", it=12))
    fighters = begin_boule_de_feu(fighters, "York", "round")
    assert fighters[1].casting == c.Casting(spell="Boule de Feu", combustion=8)
    fighters = (fighters[0], c.Combatant(name="York", it=22, casting=fighters[1].casting))
    with pytest.raises(RuleError, match="York is incanting Boule de Feu and can do nothing else"):
        c.take_action(fighters, "York", 3)


def test_an_attack_during_the_incantation_can_deconcentrate_york():
    # L969-L972 (D5): between IT 12 and 22 Thor could have hit York. With York's CNC 10 and a d20 of 9,
    # his margin is 10 + 9 - 16 = 3: 4 damage breaks the spell, which then pays no combustion.
    check = m.concentration(10, 9, BOULE_DE_FEU_CNC)
    assert check.success and m.deconcentrates(3, check, BOULE_DE_FEU_TIME) is False
    assert m.deconcentrates(4, check, BOULE_DE_FEU_TIME) is True
    fighters: Fighters = (c.Combatant(name="Thor", it=13), c.Combatant(name="York", it=12))
    fighters = begin_boule_de_feu(fighters, "York", "round")
    fighters = c.interrupt_spell(fighters, "York")
    assert (fighters[1].it, fighters[1].casting) == (22, None)


def test_a_failed_boule_de_feu_pays_the_incantation_only():
    # L1284: failed concentration -> incantation counted, combustion not.
    durations = m.spell_durations(BOULE_DE_FEU_TIME, BOULE_DE_FEU_CNC, "round", success=False)
    fighters: Fighters = (c.Combatant(name="Thor", it=13), c.Combatant(name="York", it=12))
    fighters = c.begin_spell(fighters, "York", "Boule de Feu", durations, success=False)
    fighters = (c.Combatant(name="Thor", it=23), fighters[1])
    fighters = c.complete_spell(fighters, "York")
    assert fighters[1].it == 22


@pytest.mark.parametrize(("mode", "combustion"), [("round", 4), ("truncate", 3)], ids=["round", "truncate"])
def test_odd_cnc_combustion_differs_by_rounding_mode(mode, combustion):
    # An INSTANTANÉ spell of CNC 7 (Rayon Magique's CNC, L1065; its Temps is not printed) has no
    # incantation and 7 / 2 = 3.5 s of combustion (L1271, D1), added at once.
    fighters: Fighters = (c.Combatant(name="Xar", it=0), c.Combatant(name="Taz", it=5))
    fighters = c.begin_spell(fighters, "Xar", "Rayon Magique", m.spell_durations("INSTANTANÉ", 7, mode))
    assert fighters[0].it == combustion and fighters[0].casting is None
