"""The Illergan XP ledger: every award, spend and correction with its running balance.

Writes the table ``xp_ledger`` with exactly the columns of the XP ledger contract
(docs/architecture.md), so ``cristal audit xp`` reads it unchanged. The balance counts the xp a hero
can spend: the heritage xp given at creation (a row of kind ``award``; it is not in the xp total,
I-L352-354) plus the xp earned, minus every purchase. ``flags``: ``cost_mismatch`` (charged differs
from what the rules required), ``negative_balance``, ``dead_character``, ``no_reason``.
"""

from typing import Any

import msgspec

from cristal_events.rulesets.illergan import fights, heroes
from cristal_events.xp_ledger import LedgerEntry, posted

from .base import LedgerProjection, ledger_entry


class Account(msgspec.Struct, kw_only=True):
    balance: int = 0
    dead: bool = False


class LedgerState(msgspec.Struct, kw_only=True):
    accounts: dict[str, Account] = {}
    last: LedgerEntry | None = None  # the entry of the event just folded, if it moved xp


def _what(ev: heroes.XpSpent) -> str:
    match ev.kind:
        case "skill":
            start = "new" if ev.from_value is None else f"{ev.from_value}%"
            return f"skill {ev.target} {start} -> {ev.to_value}%"
        case "pp":
            return f"{ev.to_value - (ev.from_value or 0)} pp of {ev.target}"
        case "magic":
            return f"magic {ev.target}"
        case "characteristic":
            return f"{ev.target} {ev.from_value} -> {ev.to_value}"
    return f"faith level {ev.to_value}"


def _entry(rec: Any) -> LedgerEntry | None:
    """The unposted ledger entry of an event that moves xp (None: this one moves none)."""
    ev = rec.event
    match ev:
        case heroes.HeroCreated() if ev.character_data.heritage_xp:
            return ledger_entry(rec, ev.character, kind="award", amount=ev.character_data.heritage_xp,
                                what=f"heritage {ev.character_data.heritage}",
                                reason="heritage xp at creation (I-L352)")
        case heroes.XpAwarded():
            return ledger_entry(rec, ev.character, kind="award", amount=ev.amount, what="award", reason=ev.reason)
        case heroes.XpSpent():
            return ledger_entry(rec, ev.character, kind="spend", amount=-ev.cost_charged, what=_what(ev),
                                charged=ev.cost_charged, required=ev.cost_required)
        case heroes.HeroCorrected() if ev.field == "xp":
            return ledger_entry(rec, ev.character, kind="correction", amount=ev.delta,
                                what=f"correction of position {ev.amends}", reason=ev.reason, amends=ev.amends)
    return None


class IllerganLedger(LedgerProjection):
    name = "illergan_ledger"
    version = 1
    rulesets = ("illergan",)
    state_type = LedgerState

    def initial(self) -> LedgerState:
        return LedgerState()

    def evolve(self, state: LedgerState, rec: Any) -> LedgerState:
        ev = rec.event
        accounts = state.accounts
        if isinstance(ev, fights.AttackResolved) and ev.dead and ev.target in accounts:
            accounts = {**accounts, ev.target: msgspec.structs.replace(accounts[ev.target], dead=True)}
        if isinstance(ev, fights.DestinyPointSpent) and ev.revived and ev.character in accounts:
            accounts = {**accounts, ev.character: msgspec.structs.replace(accounts[ev.character], dead=False)}
        entry = _entry(rec)
        if entry is None:
            return LedgerState(accounts=accounts) if accounts is not state.accounts or state.last else state
        acc = accounts.get(ev.character, Account())
        if acc.dead:
            entry.flags.append("dead_character")
        entry = posted(entry, acc.balance)
        accounts = {**accounts, ev.character: msgspec.structs.replace(acc, balance=entry.balance_after)}
        return LedgerState(accounts=accounts, last=entry)


PROJECTIONS = [IllerganLedger]
