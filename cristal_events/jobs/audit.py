"""The XP audit: every award and spend per character, corrections beside what they amend, totals per
session, and the anomalies that make the audit fail.

It reads the XP ledger contract of docs/architecture.md (the rows a ruleset's ledger projection writes
to ``xp_ledger``) but computes those rows in memory by folding the projection over the log, so it
needs no stored read model and works on a log written by an older engine (events are upcast on read).

Python API::

    rows = ledger_rows(camp, ledger_projection)      # the contract's rows, folded in memory
    report = audit_rows(rows, names={"thor": "Thor"})  # pure
    report.anomalies                                   # [] when the trades are clean
"""

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import msgspec

from ..display import visible
from ..errors import CristalError, UnknownEntity

Progress = Callable[[int, int], None]

#: the anomaly codes of the ledger contract, with the sentence the audit prints
ANOMALIES = {
    "cost_mismatch": "charged {cost_charged} XP where the rules required {cost_required}",
    "negative_balance": "the balance fell to {balance_after} XP",
    "past_level_limit": "the purchase goes past the race's level limit",
    "dead_character": "a dead character bought something",
    "no_reason": "an award with no reason",
}
LEDGER_TABLE = "xp_ledger"


class Entry(msgspec.Struct, kw_only=True):
    """One ledger row as the audit shows it (the contract's columns, flags merged with the audit's)."""

    position: int
    character: str
    session: int | None = None
    recorded_at: str = ""
    actor: str = ""
    kind: str
    amount: int
    what: str = ""
    reason: str = ""
    cost_charged: int | None = None
    cost_required: int | None = None
    balance_after: int | None = None
    amends: int | None = None
    flags: list[str] = []
    corrections: list["Entry"] = []


class SessionTotal(msgspec.Struct, kw_only=True):
    session: int | None
    earned: int = 0
    spent: int = 0
    corrected: int = 0


class Anomaly(msgspec.Struct, kw_only=True):
    position: int
    character: str
    code: str
    message: str


class CharacterAudit(msgspec.Struct, kw_only=True):
    id: str
    name: str
    entries: list[Entry] = []
    sessions: list[SessionTotal] = []
    earned: int = 0
    spent: int = 0
    corrected: int = 0
    balance: int = 0


class AuditReport(msgspec.Struct, kw_only=True):
    characters: list[CharacterAudit] = []
    anomalies: list[Anomaly] = []

    @property
    def ok(self) -> bool:
        return not self.anomalies


def find_ledger(projs: Iterable[Any]) -> Any:
    """The projection that writes the ``xp_ledger`` table, or a clear error."""
    for p in projs:
        if LEDGER_TABLE in p.tables:
            return p
    raise CristalError("This campaign's rules have no XP ledger projection; the XP audit cannot run.")


def ledger_rows(camp: Any, ledger: Any, *, progress: Progress | None = None) -> Iterator[dict[str, Any]]:
    """The ``xp_ledger`` rows of the whole log, computed by folding ``ledger`` in memory."""
    state = ledger.initial()
    total, done = camp.store.last_position(), 0
    for rec in camp.store.read_all():
        state = ledger.evolve(state, rec)
        if ledger.append_tables:
            yield from ledger.appended(state, rec).get(LEDGER_TABLE, [])
        done += 1
        if progress is not None and done % 1000 == 0:
            progress(done, total)
    if LEDGER_TABLE in ledger.state_tables:
        yield from ledger.rows(state).get(LEDGER_TABLE, [])
    if progress is not None:
        progress(total, total)


def _flags(raw: Any) -> list[str]:
    if raw is None or raw == "":
        return []
    if isinstance(raw, (str, bytes)):
        raw = msgspec.json.decode(raw)
    return [str(f) for f in raw]


def to_entry(row: dict[str, Any]) -> Entry:
    """A contract row -> an Entry, adding the anomalies the audit checks itself."""
    data = {k: row.get(k) for k in Entry.__struct_fields__ if k not in ("flags", "corrections")}
    data = {k: v for k, v in data.items() if v is not None}
    data.setdefault("amount", 0)
    e = msgspec.convert(data, Entry)
    flags = _flags(row.get("flags"))
    if e.kind == "spend" and e.cost_required is not None and e.cost_charged is not None \
            and e.cost_charged != e.cost_required:
        flags.append("cost_mismatch")
    if e.balance_after is not None and e.balance_after < 0:
        flags.append("negative_balance")
    if e.kind == "award" and not (e.reason or "").strip():
        flags.append("no_reason")
    e.flags = list(dict.fromkeys(flags))
    return e


def _settle(e: Entry) -> None:
    """A wrong charge that a later correction brought to the rules' cost is no longer an anomaly."""
    if "cost_mismatch" not in e.flags:
        return
    fixed = [c.cost_charged for c in e.corrections if c.cost_charged is not None]
    if fixed and fixed[-1] == e.cost_required:
        e.flags = [f for f in e.flags if f != "cost_mismatch"]


def audit_rows(rows: Iterable[dict[str, Any]], *, names: dict[str, str] | None = None,
               character: str | None = None) -> AuditReport:
    """The audit of ledger rows (pure): per character, entries, corrections, totals, anomalies."""
    names = names or {}
    by_char: dict[str, list[Entry]] = {}
    for row in sorted(rows, key=lambda r: r["position"]):
        e = to_entry(row)
        by_char.setdefault(e.character, []).append(e)
    if character is not None and character not in by_char:
        if character not in names:
            raise UnknownEntity(f"No character {character!r} in this campaign.")
        by_char = {character: []}
    report = AuditReport()
    for cid in sorted(by_char) if character is None else [character]:
        entries = by_char[cid]
        ca = CharacterAudit(id=cid, name=names.get(cid, cid))
        index = {e.position: e for e in entries}
        totals: dict[int | None, SessionTotal] = {}
        for e in entries:
            t = totals.setdefault(e.session, SessionTotal(session=e.session))
            if e.kind == "award":
                t.earned += e.amount
                ca.earned += e.amount
            elif e.kind == "spend":
                t.spent += -e.amount
                ca.spent += -e.amount
            else:
                t.corrected += e.amount
                ca.corrected += e.amount
            if e.balance_after is not None:
                ca.balance = e.balance_after
            if e.kind == "correction" and e.amends in index and index[e.amends] is not e:
                index[e.amends].corrections.append(e)
            else:
                ca.entries.append(e)
        for e in entries:
            _settle(e)
            for code in e.flags:
                template = ANOMALIES.get(code, code)
                report.anomalies.append(Anomaly(position=e.position, character=cid, code=code,
                                                message=template.format(**msgspec.structs.asdict(e))))
        ca.sessions = list(totals.values())
        report.characters.append(ca)
    return report


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def _entry_line(e: Entry, indent: str = "") -> str:
    sess = f"s{e.session}" if e.session is not None else "--"
    if e.kind == "award":
        what = f"award: {e.reason or e.what}".rstrip()
    elif e.kind == "spend":
        rule = f", rule {e.cost_required}" if e.cost_required is not None else ""
        what = f"spend: {e.what} (charged {e.cost_charged}{rule})"
    else:
        what = f"correction of #{e.amends}: {e.reason or e.what}"
    bal = "" if e.balance_after is None else str(e.balance_after)
    flags = f"  !! {', '.join(e.flags)}" if e.flags else ""
    return f"{indent}#{e.position:<5} {sess:<4} {_signed(e.amount):>7} {bal:>8}  {what}  [{e.actor}]{flags}"


def text_lines(report: AuditReport) -> Iterator[str]:
    """The readable audit: one section per character, then the anomalies (control characters of the
    names and reasons shown visibly)."""
    return map(visible, _text_lines(report))


def _text_lines(report: AuditReport) -> Iterator[str]:
    for ca in report.characters:
        yield f"XP of {ca.name} ({ca.id})"
        yield f"  {'pos':<6} {'sess':<4} {'amount':>7} {'balance':>8}  what [by]"
        for e in ca.entries:
            yield "  " + _entry_line(e)
            for c in e.corrections:
                yield "  " + _entry_line(c, "  ↳ ")
        for t in ca.sessions:
            label = f"session {t.session}" if t.session is not None else "outside sessions"
            corr = f", corrected {_signed(t.corrected)}" if t.corrected else ""
            yield f"  Total {label}: earned {t.earned}, spent {t.spent}{corr}"
        corr = f", corrected {_signed(ca.corrected)}" if ca.corrected else ""
        yield f"  Overall: earned {ca.earned}, spent {ca.spent}{corr}; balance {ca.balance} XP"
        yield ""
    if report.anomalies:
        yield f"{len(report.anomalies)} anomal{'y' if len(report.anomalies) == 1 else 'ies'}:"
        for a in report.anomalies:
            yield f"  #{a.position} {a.character}: {a.message} ({a.code})"
    else:
        yield "No anomaly: every charge matches the rules."
