"""The XP ledger contract (docs/architecture.md), decided in one place.

A :class:`LedgerEntry` is one row of the ``xp_ledger`` table: every ruleset's ledger projection
builds them, the read model stores them, and the XP audit and the exports read them back. The
anomaly rules live in :func:`flags` and the running balance in :func:`posted`; nothing else decides
either. Pure: no I/O, no ruleset.

Python API::

    entry = LedgerEntry(position=5, character="thor", kind="award", amount=600, reason="York")
    entry = posted(entry, balance_before=0)          # balance_after 600, flags decided
    flags(entry)                                     # [] (the anomaly codes, in the contract's order)
    from_row(row) / to_row(entry)                    # a stored row <-> an entry
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from .i18n import N_

#: the anomaly codes of the contract, in the order an entry lists them, with the sentence the audit prints
ANOMALIES = {
    "cost_mismatch": N_("charged {cost_charged} XP where the rules required {cost_required}"),
    "negative_balance": N_("the balance fell to {balance_after} XP"),
    "past_level_limit": N_("the purchase goes past the race's level limit"),
    "dead_character": N_("a dead character bought something"),
    "no_reason": N_("an award with no reason"),
}
#: the codes only the fold that wrote the entry can know (the columns do not show them): a projection
#: puts them in ``flags`` before :func:`posted`, and they are read back from the stored flags
FOLD_FACTS = ("past_level_limit", "dead_character")


class LedgerEntry(msgspec.Struct, kw_only=True):
    """One ``xp_ledger`` row: the contract's columns in their order."""

    position: int
    character: str
    session: int | None = None
    recorded_at: str = ""
    actor: str = ""
    kind: str  # award | spend | correction
    amount: int  # the signed XP change
    what: str = ""
    reason: str = ""
    cost_charged: int | None = None
    cost_required: int | None = None
    balance_after: int | None = None
    amends: int | None = None
    flags: list[str] = []


def flags(entry: LedgerEntry) -> list[str]:
    """The anomaly codes of ``entry``, in the contract's order: a charge that differs from the rules'
    cost, a balance below zero, the fold's facts (a level past the race limit, a dead character),
    an award or a correction with no reason; then any other code the entry already carried."""
    found = set(entry.flags)
    if entry.cost_charged is not None and entry.cost_required is not None \
            and entry.cost_charged != entry.cost_required:
        found.add("cost_mismatch")
    if entry.balance_after is not None and entry.balance_after < 0:
        found.add("negative_balance")
    if entry.kind != "spend" and not entry.reason.strip():
        found.add("no_reason")
    return [c for c in ANOMALIES if c in found] + [c for c in dict.fromkeys(entry.flags) if c not in ANOMALIES]


def posted(entry: LedgerEntry, balance_before: int) -> LedgerEntry:
    """``entry`` posted to an account holding ``balance_before``: its running balance and its flags.
    The balance is the ledger's own running sum (not a value an event recorded), so a correction
    shows in every later row."""
    entry = msgspec.structs.replace(entry, balance_after=balance_before + entry.amount)
    entry.flags = flags(entry)
    return entry


def balance(entries: Iterable[LedgerEntry]) -> int:
    """The balance after the last of ``entries`` that carries one (0 when none does)."""
    last = 0
    for e in entries:
        if e.balance_after is not None:
            last = e.balance_after
    return last


def _stored_flags(raw: Any) -> list[str]:
    if raw is None or raw == "":
        return []
    if isinstance(raw, (str, bytes)):
        raw = msgspec.json.decode(raw)
    return [str(f) for f in raw]


def from_row(row: Mapping[str, Any]) -> LedgerEntry:
    """A stored or computed ``xp_ledger`` row (flags as a list or as JSON text) -> an entry whose
    flags are decided again by :func:`flags` (the stored fold facts kept)."""
    data = {k: row.get(k) for k in LedgerEntry.__struct_fields__ if k != "flags"}
    data = {k: v for k, v in data.items() if v is not None}
    data.setdefault("amount", 0)
    entry = msgspec.convert(data, LedgerEntry)
    entry.flags = _stored_flags(row.get("flags"))
    entry.flags = flags(entry)
    return entry


def to_row(entry: LedgerEntry) -> dict[str, Any]:
    """The ``xp_ledger`` row of ``entry`` (a dict keyed by column, flags a list)."""
    return msgspec.structs.asdict(entry)
