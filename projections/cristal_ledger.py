"""The Lois du Cristal XP ledger: every award, spend and correction with its running balance.

Writes the table ``xp_ledger`` with exactly the columns of the XP ledger contract
(docs/architecture.md), shared with the Illergan ledger and read by the audit. The balance is the
ledger's own running sum (not the value an event recorded), so a correction shows in every later
row; the correction of a purchase's charge (``--set cost=N``) fills ``cost_charged`` with the corrected
charge and ``cost_required`` with the rules' cost, beside the purchase it ``amends``; ``flags`` lists the anomalies found: ``cost_mismatch`` (charged differs from what the rules
required), ``negative_balance``, ``past_level_limit`` (global level above the race limit, L501),
``dead_character`` (XP moved on a dead character, L373) and ``no_reason`` (an award without one).
"""

from __future__ import annotations

from typing import Any

import msgspec

from cristal_events.events import CorrectionRecorded
from cristal_events.rulesets.cristal import characters as chars

from .base import LedgerProjection, ledger_row


class Account(msgspec.Struct, kw_only=True):
    balance: int = 0
    dead: bool = False
    level_limit: int | None = None


class LedgerState(msgspec.Struct, kw_only=True):
    accounts: dict[str, Account] = {}
    last: dict[str, Any] | None = None  # the row of the event just folded, if it moved XP
    correction_reason: str = ""  # the reason of the correction.recorded that heads its compensations


def _entry(ev: Any) -> tuple[str, int, str, str, int | None, int | None, int | None, int | None] | None:
    """(kind, amount, what, reason, cost_charged, cost_required, amends, global_level) of an XP event."""
    match ev:
        case chars.XpAwarded():
            return "award", ev.amount, ev.reason, ev.reason, None, None, None, None
        case chars.LevelBought():
            return ("spend", -ev.cost_charged, f"global level {ev.global_level} ({ev.class_name} {ev.class_level}, "
                    f"+1 {ev.stat})", "", ev.cost_charged, ev.cost_required, None, ev.global_level)
        case chars.TechniqueBought():
            return ("spend", -ev.cost_charged, f"technique {ev.technique} level {ev.level}", "", ev.cost_charged,
                    ev.cost_required, None, None)
        case chars.SpellLearned():
            return "spend", -ev.cost_charged, f"spell {ev.spell}", "", ev.cost_charged, ev.cost_required, None, None
        case chars.CharacterCorrected() if ev.field == "xp" and ev.cost_after is not None:
            return ("correction", ev.delta, f"correction of position {ev.amends}: {ev.what} charged {ev.cost_before}"
                    f" -> {ev.cost_after}", ev.reason, ev.cost_after, ev.cost_required, ev.amends, None)
        case chars.CharacterCorrected() if ev.field == "xp":
            return "correction", ev.delta, f"correction of position {ev.amends}", ev.reason, None, None, ev.amends, None
    return None


class CristalLedger(LedgerProjection):
    name = "cristal_ledger"
    version = 2  # 2: a purchase's correction carries the corrected charge and the rules' cost
    rulesets = ("cristal",)
    state_type = LedgerState

    def initial(self) -> LedgerState:
        return LedgerState()

    def evolve(self, state: LedgerState, rec: Any) -> LedgerState:
        ev = rec.event
        accounts = state.accounts
        if isinstance(ev, CorrectionRecorded):
            return LedgerState(accounts=accounts, correction_reason=ev.reason)
        if isinstance(ev, chars.CharacterCreated):
            accounts = {**accounts, ev.character: Account(level_limit=ev.level_limit)}
            return LedgerState(accounts=accounts)
        if isinstance(ev, chars.DamageTaken) and ev.dead and ev.character in accounts:
            acc = msgspec.structs.replace(accounts[ev.character], dead=True)
            return LedgerState(accounts={**accounts, ev.character: acc})
        entry = _entry(ev)
        if entry is None:
            return state if state.last is None else LedgerState(accounts=accounts)
        kind, amount, what, reason, charged, required, amends, level = entry
        if kind == "correction":
            reason = reason or state.correction_reason
        acc = accounts.get(ev.character, Account())
        balance = acc.balance + amount
        row = ledger_row(rec, ev.character, kind=kind, amount=amount, what=what, reason=reason, charged=charged,
                         required=required, balance=balance, amends=amends, dead=acc.dead,
                         past_level_limit=level is not None and acc.level_limit is not None and level > acc.level_limit)
        return LedgerState(accounts={**accounts, ev.character: msgspec.structs.replace(acc, balance=balance)},
                           last=row, correction_reason=state.correction_reason)


PROJECTIONS = [CristalLedger]
