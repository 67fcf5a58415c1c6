"""The two session dice sums that the service's fold and the fairness check must compute alike.

The service counts a session's engine dice and joins its salts as it folds the log
(``CoreState.dice_counter`` / ``session_salt``); :func:`cristal_events.fairness.verify_rolls` counts
and joins them again from the stored records alone, to check that the log could have been rolled as
it says. Both read them from here, so that the check never imports the service it checks.
"""

from __future__ import annotations

from .events import DiceRecorded
from .log_rows import sha256


def engine_dice(ev: DiceRecorded) -> int:
    """How many of a record's dice the engine rolled (the die counter's advance)."""
    return sum(1 for r in ev.rolls for d in r.dice if d.source == "rolled")


def joined_salt(before: str, salt: str) -> str:
    """The session's salt after one more: the texts in log order, one a line."""
    return f"{before}\n{salt}" if before else salt


#: the domain of a secret roll's commitment (changes if its input ever does)
SEALED_DOMAIN = "cristal-events sealed roll v1"


def sealed_commitment(position: int, purpose: str, nonce: str, events: str) -> str:
    """The commitment a ``roll.sealed`` event stores (docs/verifiable-dice.md, "Secret rolls"):
    SHA-256 of the domain, the event's position, the roll's purpose, the nonce and the exact text of
    the sealed events, one a line. Binding the position and the purpose means a reveal cannot be
    moved to another sealed roll, nor a roll sealed for one command revealed as another's."""
    text = f"{SEALED_DOMAIN}\n{position}\n{purpose}\n{nonce}\n{events}"
    return sha256()(text.encode()).hexdigest()
