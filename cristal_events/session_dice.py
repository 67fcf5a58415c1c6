"""The two session dice sums that the service's fold and the fairness check must compute alike.

The service counts a session's engine dice and joins its salts as it folds the log
(``CoreState.dice_counter`` / ``session_salt``); :func:`cristal_events.fairness.verify_rolls` counts
and joins them again from the stored records alone, to check that the log could have been rolled as
it says. Both read them from here, so that the check never imports the service it checks.
"""

from __future__ import annotations

from .events import DiceRecorded


def engine_dice(ev: DiceRecorded) -> int:
    """How many of a record's dice the engine rolled (the die counter's advance)."""
    return sum(1 for r in ev.rolls for d in r.dice if d.source == "rolled")


def joined_salt(before: str, salt: str) -> str:
    """The session's salt after one more: the texts in log order, one a line."""
    return f"{before}\n{salt}" if before else salt
