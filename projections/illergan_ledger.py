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

from .base import LedgerProjection, ledger_row


class Account(msgspec.Struct, kw_only=True):
    balance: int = 0
    dead: bool = False


class LedgerState(msgspec.Struct, kw_only=True):
    accounts: dict[str, Account] = {}
    last: dict[str, Any] | None = None


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


def _entry(ev: Any) -> tuple[str, int, str, str, int | None, int | None, int | None] | None:
    """(kind, amount, what, reason, cost_charged, cost_required, amends) of an event that moves xp."""
    match ev:
        case heroes.HeroCreated() if ev.character_data.heritage_xp:
            return ("award", ev.character_data.heritage_xp, f"heritage {ev.character_data.heritage}",
                    "heritage xp at creation (I-L352)", None, None, None)
        case heroes.XpAwarded():
            return "award", ev.amount, "award", ev.reason, None, None, None
        case heroes.XpSpent():
            return "spend", -ev.cost_charged, _what(ev), "", ev.cost_charged, ev.cost_required, None
        case heroes.HeroCorrected() if ev.field == "xp":
            return "correction", ev.delta, f"correction of position {ev.amends}", ev.reason, None, None, ev.amends
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
        entry = _entry(ev)
        if entry is None:
            return LedgerState(accounts=accounts) if accounts is not state.accounts or state.last else state
        kind, amount, what, reason, charged, required, amends = entry
        acc = accounts.get(ev.character, Account())
        balance = acc.balance + amount
        row = ledger_row(rec, ev.character, kind=kind, amount=amount, what=what, reason=reason, charged=charged,
                         required=required, balance=balance, amends=amends, dead=acc.dead)
        return LedgerState(accounts={**accounts, ev.character: msgspec.structs.replace(acc, balance=balance)},
                           last=row)


PROJECTIONS = [IllerganLedger]
