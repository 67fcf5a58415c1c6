"""The Lois du Cristal XP ledger: every award, spend and correction with its running balance.

Writes the table ``xp_ledger`` with exactly the columns of the XP ledger contract
(docs/architecture.md), shared with the Illergan ledger and read by the audit. The balance is the
ledger's own running sum (not the value an event recorded), so a correction shows in every later
row; the correction of a purchase's charge (``--set cost=N``) fills ``cost_charged`` with the corrected
charge and ``cost_required`` with the rules' cost, beside the purchase it ``amends``; ``flags`` lists the anomalies found: ``cost_mismatch`` (charged differs from what the rules
required), ``negative_balance``, ``past_level_limit`` (global level above the race limit, L501),
``dead_character`` (XP moved on a dead character, L373) and ``no_reason`` (an award without one).
"""

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


def _correction(ev: chars.CharacterCorrected) -> tuple[Any, ...] | None:
    if ev.field != "xp":
        return None
    if ev.cost_after is not None:
        return ("correction", ev.delta, f"correction of position {ev.amends}: {ev.what} charged {ev.cost_before}"
                f" -> {ev.cost_after}", ev.reason, ev.cost_after, ev.cost_required, ev.amends, None)
    return "correction", ev.delta, f"correction of position {ev.amends}", ev.reason, None, None, ev.amends, None


#: (kind, amount, what, reason, cost_charged, cost_required, amends, global_level) of an XP event, or None
_ENTRY: dict[type, Any] = {
    chars.XpAwarded: lambda ev: ("award", ev.amount, ev.reason, ev.reason, None, None, None, None),
    chars.LevelBought: lambda ev: ("spend", -ev.cost_charged, f"global level {ev.global_level} ({ev.class_name} "
                                   f"{ev.class_level}, +1 {ev.stat})", "", ev.cost_charged, ev.cost_required, None,
                                   ev.global_level),
    chars.TechniqueBought: lambda ev: ("spend", -ev.cost_charged, f"technique {ev.technique} level {ev.level}", "",
                                       ev.cost_charged, ev.cost_required, None, None),
    chars.SpellLearned: lambda ev: ("spend", -ev.cost_charged, f"spell {ev.spell}", "", ev.cost_charged,
                                    ev.cost_required, None, None),
    chars.CharacterCorrected: _correction,
}


def _unrelated(state: LedgerState) -> LedgerState:
    """An event that moves no XP: the row of the previous one (and the correction it headed) is over."""
    return state if state.last is None else LedgerState(accounts=state.accounts)


def _correction_recorded(state: LedgerState, rec: Any) -> LedgerState:
    return LedgerState(accounts=state.accounts, correction_reason=rec.event.reason)


def _created(state: LedgerState, rec: Any) -> LedgerState:
    ev = rec.event
    return LedgerState(accounts={**state.accounts, ev.character: Account(level_limit=ev.level_limit)})


def _damaged(state: LedgerState, rec: Any) -> LedgerState:
    ev = rec.event
    if not ev.dead or ev.character not in state.accounts:
        return _unrelated(state)
    acc = msgspec.structs.replace(state.accounts[ev.character], dead=True)
    return LedgerState(accounts={**state.accounts, ev.character: acc})


def _moved(state: LedgerState, rec: Any) -> LedgerState:
    ev = rec.event
    entry = _ENTRY[type(ev)](ev)
    if entry is None:
        return _unrelated(state)
    kind, amount, what, reason, charged, required, amends, level = entry
    if kind == "correction":
        reason = reason or state.correction_reason
    accounts = state.accounts
    acc = accounts.get(ev.character, Account())
    balance = acc.balance + amount
    row = ledger_row(rec, ev.character, kind=kind, amount=amount, what=what, reason=reason, charged=charged,
                     required=required, balance=balance, amends=amends, dead=acc.dead,
                     past_level_limit=level is not None and acc.level_limit is not None and level > acc.level_limit)
    return LedgerState(accounts={**accounts, ev.character: msgspec.structs.replace(acc, balance=balance)},
                       last=row, correction_reason=state.correction_reason)


_EVOLVE: dict[type, Any] = {CorrectionRecorded: _correction_recorded, chars.CharacterCreated: _created,
                            chars.DamageTaken: _damaged, **{cls: _moved for cls in _ENTRY}}


class CristalLedger(LedgerProjection):
    name = "cristal_ledger"
    version = 2  # 2: a purchase's correction carries the corrected charge and the rules' cost
    rulesets = ("cristal",)
    state_type = LedgerState
    handles = frozenset(_EVOLVE)

    def initial(self) -> LedgerState:
        return LedgerState()

    def evolve(self, state: LedgerState, rec: Any) -> LedgerState:
        fn = _EVOLVE.get(type(rec.event))
        if fn is None:  # no XP moves; what it ends is applied at the next event this ledger handles
            return state
        if state.last is not None and state.last["position"] < rec.position - 1:
            state = _unrelated(state)  # events this ledger does not handle came after the last row
        return fn(state, rec)


PROJECTIONS = [CristalLedger]
