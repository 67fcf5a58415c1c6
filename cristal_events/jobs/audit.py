"""The XP audit: every award and spend per character, corrections beside what they amend, totals per
session, and the anomalies that make the audit fail.

It reads the XP ledger contract of docs/architecture.md: the entries a ruleset's ledger projection
writes to ``xp_ledger`` (:class:`~cristal_events.xp_ledger.LedgerEntry`), with the anomalies that
:func:`~cristal_events.xp_ledger.flags` decides. It reads them from the caught-up ``xp_ledger`` table;
when that read model is behind the log (a campaign opened read-only, a log written by an older
engine, whose events are upcast on read) it takes the rows a rebuild would write, computed in memory
by the runner (``projections.runner.expected_rows``), so it needs no stored read model.

Python API::

    entries = ledger_rows(camp, ledger_projection)     # the contract's entries, stored or computed
    report = audit_rows(entries, names={"thor": "Thor"})  # pure
    report.anomalies                                      # [] when the trades are clean
"""

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import msgspec
import sqlite_utils

from ..cycles import no_cycle_collector
from ..display import visible
from ..errors import CristalError, UnknownEntity
from ..i18n import _, ngettext
from ..xp_ledger import ANOMALIES, LedgerEntry, balance, from_row

Progress = Callable[[int, int], None]

LEDGER_TABLE = "xp_ledger"
__all__ = ["ANOMALIES", "AuditReport", "Entry", "audit_rows", "find_ledger", "ledger_rows", "text_lines"]


class Entry(LedgerEntry, kw_only=True):
    """One ledger entry as the audit shows it: the contract's columns, then the corrections of it."""

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
    raise CristalError(_("This campaign's rules have no XP ledger projection; the XP audit cannot run."))


def _caught_up(camp: Any, ledger: Any) -> sqlite_utils.db.Table | None:
    """The stored ``xp_ledger`` table when ``ledger``'s checkpoint (of its current version) is at the
    end of the log, else None. sqlite-utils reads it (introspection and rows), so no SQL is written
    here; ``recursive_triggers=False`` leaves the store's connection as it was."""
    db = sqlite_utils.Database(camp.store.conn, recursive_triggers=False)
    if not (db["projection_checkpoints"].exists() and db[LEDGER_TABLE].exists()):
        return None
    found = list(db["projection_checkpoints"].rows_where("name = ?", [ledger.name], select="version, position"))
    if not found or found[0]["version"] != ledger.version or found[0]["position"] != camp.store.last_position():
        return None
    return db.table(LEDGER_TABLE)


def ledger_rows(camp: Any, ledger: Any, *, progress: Progress | None = None) -> list[LedgerEntry]:
    """The ``xp_ledger`` entries of the whole log in position order: the caught-up table's, or (when
    the read model is behind) the rows a rebuild of ``ledger`` would write, computed in memory.

    Read with the cycle collector paused (:func:`cristal_events.cycles.no_cycle_collector`): each
    row makes a dict and an entry and no reference cycle, and with the collector on, its
    collections walked the entries already read again and again (the 1M campaign's 87,558 entries:
    0.72-0.87 s, 0.50-0.54 without; benchmarks/README.md, "Eleventh session")."""
    with no_cycle_collector():
        return _ledger_rows(camp, ledger, progress)


def _ledger_rows(camp: Any, ledger: Any, progress: Progress | None) -> list[LedgerEntry]:
    if not hasattr(camp.store, "read_model_db"):  # a PostgreSQL campaign: the store reads the table itself
        if camp.store.read_model_current(ledger.name, ledger.version):
            return [from_row(r) for r in camp.store.read_model_rows(LEDGER_TABLE, order_by=("position",))]
        table = None
    else:
        table = _caught_up(camp, ledger)
    if table is not None:
        return [from_row(r) for r in table.rows_where(order_by="position")]
    from ..projections import runner  # only when the read model is behind: a caught-up table needs no fold

    rows = runner.expected_rows(camp, ledger, progress=progress)[LEDGER_TABLE]
    if progress is not None:
        total = camp.store.last_position()
        progress(total, total)
    return sorted((from_row(r) for r in rows), key=lambda e: e.position)


def to_entry(row: LedgerEntry | Mapping[str, Any]) -> Entry:
    """A contract entry (or a row of the table) -> the audit's Entry, its flags decided by
    :func:`~cristal_events.xp_ledger.flags`."""
    entry = row if isinstance(row, LedgerEntry) else from_row(row)
    return Entry(**msgspec.structs.asdict(entry))


def _settle(e: Entry) -> None:
    """A wrong charge that a later correction brought to the rules' cost is no longer an anomaly."""
    if "cost_mismatch" not in e.flags:
        return
    fixed = [c.cost_charged for c in e.corrections if c.cost_charged is not None]
    if fixed and fixed[-1] == e.cost_required:
        e.flags = [f for f in e.flags if f != "cost_mismatch"]


def audit_rows(rows: Iterable[LedgerEntry | Mapping[str, Any]], *, names: dict[str, str] | None = None,
               character: str | None = None) -> AuditReport:
    """The audit of ledger rows (pure): per character, entries, corrections, totals, anomalies."""
    names = names or {}
    by_char: dict[str, list[Entry]] = {}
    for e in sorted(map(to_entry, rows), key=lambda e: e.position):
        by_char.setdefault(e.character, []).append(e)
    if character is not None and character not in by_char:
        if character not in names:
            raise UnknownEntity(_("No character {character!r} in this campaign.").format(character=character))
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
            if e.kind == "correction" and e.amends in index and index[e.amends] is not e:
                index[e.amends].corrections.append(e)
            else:
                ca.entries.append(e)
        for e in entries:
            _settle(e)
            for code in e.flags:
                template = _(ANOMALIES[code]) if code in ANOMALIES else code
                report.anomalies.append(Anomaly(position=e.position, character=cid, code=code,
                                                message=template.format(**msgspec.structs.asdict(e))))
        ca.balance = balance(entries)
        ca.sessions = list(totals.values())
        report.characters.append(ca)
    return report


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def _entry_line(e: Entry, indent: str = "") -> str:
    sess = f"s{e.session}" if e.session is not None else "--"
    if e.kind == "award":
        what = _("award: {reason}").format(reason=e.reason or e.what).rstrip()
    elif e.kind == "spend":
        rule = _(", rule {cost}").format(cost=e.cost_required) if e.cost_required is not None else ""
        what = _("spend: {what} (charged {cost}{rule})").format(what=e.what, cost=e.cost_charged, rule=rule)
    else:
        what = _("correction of #{position}: {reason}").format(position=e.amends, reason=e.reason or e.what)
    bal = "" if e.balance_after is None else str(e.balance_after)
    flags = f"  !! {', '.join(e.flags)}" if e.flags else ""
    return f"{indent}#{e.position:<5} {sess:<4} {_signed(e.amount):>7} {bal:>8}  {what}  [{e.actor}]{flags}"


def text_lines(report: AuditReport) -> Iterator[str]:
    """The readable audit: one section per character, then the anomalies (control characters of the
    names and reasons shown visibly)."""
    return map(visible, _text_lines(report))


def _text_lines(report: AuditReport) -> Iterator[str]:
    for ca in report.characters:
        yield _("XP of {name} ({id})").format(name=ca.name, id=ca.id)
        yield (f"  {_('pos'):<6} {_('sess'):<4} {_('amount'):>7} {_('balance'):>8}  "
               + _("what [by]"))
        for e in ca.entries:
            yield "  " + _entry_line(e)
            for c in e.corrections:
                yield "  " + _entry_line(c, "  ↳ ")
        for t in ca.sessions:
            corr = _(", corrected {n}").format(n=_signed(t.corrected)) if t.corrected else ""
            if t.session is not None:
                yield "  " + _("Total session {session}: earned {earned}, spent {spent}{corrected}").format(
                    session=t.session, earned=t.earned, spent=t.spent, corrected=corr)
            else:
                yield "  " + _("Total outside sessions: earned {earned}, spent {spent}{corrected}").format(
                    earned=t.earned, spent=t.spent, corrected=corr)
        corr = _(", corrected {n}").format(n=_signed(ca.corrected)) if ca.corrected else ""
        yield "  " + _("Overall: earned {earned}, spent {spent}{corrected}; balance {balance} XP").format(
            earned=ca.earned, spent=ca.spent, corrected=corr, balance=ca.balance)
        yield ""
    if report.anomalies:
        yield ngettext("{n} anomaly:", "{n} anomalies:", len(report.anomalies)).format(n=len(report.anomalies))
        for a in report.anomalies:
            yield f"  #{a.position} {a.character}: {a.message} ({a.code})"
    else:
        yield _("No anomaly: every charge matches the rules.")
