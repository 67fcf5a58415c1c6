"""The Lois du Cristal XP ledger: every award, spend and correction with its running balance.

Writes the table ``xp_ledger`` with exactly the columns of the XP ledger contract
(docs/architecture.md), shared with the Illergan ledger and read by the audit. The balance is the
ledger's own running sum (not the value an event recorded), so a correction shows in every later
row; the correction of a purchase's charge (``--set cost=N``) fills ``cost_charged`` with the corrected
charge and ``cost_required`` with the rules' cost, beside the purchase it ``amends``; ``flags`` lists the anomalies found: ``cost_mismatch`` (charged differs from what the rules
required), ``negative_balance``, ``past_level_limit`` (global level above the race limit, L501),
``dead_character`` (XP moved on a dead character, L373) and ``no_reason`` (an award without one).
"""

from collections.abc import Callable
from typing import Any

import msgspec

from cristal_events.events import CorrectionRecorded
from cristal_events.rulesets.cristal import characters as chars
from cristal_events.xp_ledger import LedgerEntry, posted

from .base import LedgerProjection, ledger_entry


class Account(msgspec.Struct, kw_only=True):
    balance: int = 0
    dead: bool = False
    level_limit: int | None = None


class LedgerState(msgspec.Struct, kw_only=True):
    accounts: dict[str, Account] = {}
    last: LedgerEntry | None = None  # the entry of the event just folded, if it moved XP
    correction_reason: str = ""  # the reason of the correction.recorded that heads its compensations


def _correction(rec: Any, ev: chars.CharacterCorrected) -> LedgerEntry | None:
    if ev.field != "xp":
        return None
    if ev.cost_after is not None:
        return ledger_entry(rec, ev.character, kind="correction", amount=ev.delta,
                            what=f"correction of position {ev.amends}: {ev.what} charged {ev.cost_before}"
                            f" -> {ev.cost_after}", reason=ev.reason, charged=ev.cost_after,
                            required=ev.cost_required, amends=ev.amends)
    return ledger_entry(rec, ev.character, kind="correction", amount=ev.delta,
                        what=f"correction of position {ev.amends}", reason=ev.reason, amends=ev.amends)


def _level(rec: Any, ev: chars.LevelBought) -> LedgerEntry:
    return ledger_entry(rec, ev.character, kind="spend", amount=-ev.cost_charged,
                        what=f"global level {ev.global_level} ({ev.class_name} {ev.class_level}, +1 {ev.stat})",
                        charged=ev.cost_charged, required=ev.cost_required)


#: the unposted ledger entry of an event that moves XP (None: this one moves none)
_ENTRY: dict[type, Callable[[Any, Any], LedgerEntry | None]] = {
    chars.XpAwarded: lambda rec, ev: ledger_entry(rec, ev.character, kind="award", amount=ev.amount,
                                                  what=ev.reason, reason=ev.reason),
    chars.LevelBought: _level,
    chars.TechniqueBought: lambda rec, ev: ledger_entry(rec, ev.character, kind="spend", amount=-ev.cost_charged,
                                                        what=f"technique {ev.technique} level {ev.level}",
                                                        charged=ev.cost_charged, required=ev.cost_required),
    chars.SpellLearned: lambda rec, ev: ledger_entry(rec, ev.character, kind="spend", amount=-ev.cost_charged,
                                                     what=f"spell {ev.spell}", charged=ev.cost_charged,
                                                     required=ev.cost_required),
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
    entry = _ENTRY[type(ev)](rec, ev)
    if entry is None:
        return _unrelated(state)
    if entry.kind == "correction" and not entry.reason:
        entry.reason = state.correction_reason
    accounts = state.accounts
    acc = accounts.get(ev.character, Account())
    if acc.dead:
        entry.flags.append("dead_character")
    if isinstance(ev, chars.LevelBought) and acc.level_limit is not None and ev.global_level > acc.level_limit:
        entry.flags.append("past_level_limit")
    entry = posted(entry, acc.balance)
    accounts = {**accounts, ev.character: msgspec.structs.replace(acc, balance=entry.balance_after)}
    return LedgerState(accounts=accounts, last=entry, correction_reason=state.correction_reason)


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
        if state.last is not None and state.last.position < rec.position - 1:
            state = _unrelated(state)  # events this ledger does not handle came after the last row
        return fn(state, rec)


PROJECTIONS = [CristalLedger]
