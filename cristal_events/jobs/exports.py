"""Timeline exports (JSONL, CSV, Markdown; HTML in :mod:`.html`) and the JSONL import.

Python API::

    steps = list(walk(camp, after=0))
    write_jsonl(steps, fh)                 # verifiable offline: cristal verify --file
    write_csv(steps, fh)                   # spreadsheet-safe (formula cells neutralised)
    write_markdown(camp, steps, fh, ledger=entries)  # entries: the XP ledger's (cristal_events.xp_ledger)
    import_jsonl("export.jsonl", "copy.db") # a new campaign with the same chain of hashes

Every text a user typed (names, reasons, titles, notes) is escaped for the format it lands in; in
CSV and Markdown its control and format characters are shown visibly first
(:func:`cristal_events.display.visible`: a newline is ``⏎``, ESC ``\\x1b``), so a cell or a line
cannot fake a row; the JSONL export keeps the text exactly.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from glob import escape as glob_escape
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import msgspec

from ..display import inert_json, visible
from ..errors import CristalError
from ..exchange import check_jsonl, export_record, import_lines, line_row, trailer
from ..i18n import _
from ..records import RecordedEvent
from ..store import Store
from ..xp_ledger import LedgerEntry
from .dice_report import dice_report
from .dice_report import markdown as dice_markdown
from .diff import render_change
from .fudges import dice_audit
from .fudges import text_lines as _fudge_text
from .walk import Step

if TYPE_CHECKING:
    from .site_walk import StepLike

Progress = Callable[[int, int], None]
FORMATS = ("jsonl", "csv", "md", "html")
PROGRESS_EVERY = 5000  # an import reports its progress every this many events


# ---------------------------------------------------------------------------------------- JSONL
def write_jsonl(steps: Iterable[Step], out: TextIO) -> int:
    """One event per line in the exchange format, then the receipt trailer ``{"receipt":
    "POSITION:HASH"}`` naming the last event written; returns the number of events."""
    n = 0
    enc = msgspec.json.Encoder()
    last = None
    for step in steps:
        out.write(inert_json(enc.encode(export_record(step.rec, summary=step.summary,
                                                      in_game_date=step.in_game_date)).decode()))
        out.write("\n")
        n += 1
        last = step.rec
    if last is not None:
        out.write(enc.encode(trailer(last)).decode())
        out.write("\n")
    return n


# ------------------------------------------------------------------------------------------ CSV
CSV_COLUMNS = ("position", "recorded_at", "session", "in_game_date", "actor", "stream", "type", "summary",
               "characters", "changes", "hash")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A cell a spreadsheet will not run and a naive reader cannot split: its control characters shown
    visibly (a newline is ``⏎``), then text starting with = + - @ (or a tab/CR) gets a leading '."""
    if value is None:
        return ""
    if isinstance(value, str):
        value = visible(value)
        if value.startswith(_FORMULA_START):
            return "'" + value
    return value


def write_csv(steps: Iterable[Step], out: TextIO) -> int:
    """One flat row per event with summary columns; returns the number of rows."""
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    n = 0
    for s in steps:
        r = s.rec
        row = (r.position, r.recorded_at, r.session, s.in_game_date, r.actor, r.stream, r.type, s.summary,
               " ".join(s.characters), "; ".join(render_change(c) for c in s.changes), r.hash)
        w.writerow([csv_cell(v) for v in row])
        n += 1
    return n


# ------------------------------------------------------------------------------------- Markdown
_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]|#~"} | {"<": "&lt;", ">": "&gt;", "&": "&amp;"})


def md(text: Any) -> str:
    """Text safe in Markdown: control characters visible (a newline is ``⏎``, so no line or table
    break), no raw HTML, no accidental emphasis or links."""
    return visible(text).translate(_MD_SPECIAL)


def character_names(camp: Any, steps: list[Step]) -> dict[str, str]:
    """Character id -> name as the last state of the walk knows it."""
    if not steps:
        return {}
    chars = camp.ruleset.characters(steps[-1].after.rules)
    return {cid: str(getattr(c, "name", cid) or cid) for cid, c in chars.items()}


def combat_its(rules_state: Any, name: str) -> dict[str, int]:
    """The Indice de Temps of each participant of a combat, when the ruleset's state keeps one."""
    combat = getattr(rules_state, "combats", {}).get(name)
    its = getattr(combat, "it", None)
    return dict(its) if isinstance(its, dict) else {}


@dataclass
class CombatRow:
    position: int
    summary: str
    actor: str
    duration: int
    it_before: dict[str, int]
    it_after: dict[str, int]
    told: str = ""  # the narration: names, dice faces, what each number is


@dataclass
class CombatView:
    name: str
    participants: list[str]
    rows: list[CombatRow]


#: the payload fields naming who acts, for an action that took no time (an instant spell: IT +0)
ACTOR_FIELDS = ("actor", "attacker", "caster")


def _instant_actor(s: StepLike, participants: dict[str, int]) -> str | None:
    """The fighter an event names as acting (``actor``, ``attacker``, ``caster``), when it is one."""
    payload = msgspec.json.decode(s.rec.payload)
    for key in ACTOR_FIELDS:
        if isinstance(payload, dict) and payload.get(key) in participants:
            return str(payload[key])
    return None


def combats(steps: Iterable[StepLike]) -> list[CombatView]:
    """Each combat stream as the book's table (L1300): IT before, who acts, the action, its duration, IT
    after; one row per event that added time to one combatant's IT, or that names a fighter acting
    while no IT moved (a spell cast whose incantation is 0 s)."""
    views = CombatViews()
    for s in steps:
        views.add(s)
    return views.views()


class CombatViews:
    """:func:`combats` one step at a time (the HTML site lets each step go once read, so a session's
    states are not all held until its page is written)."""

    def __init__(self) -> None:
        self._views: dict[str, CombatView] = {}

    def add(self, s: StepLike) -> None:
        if not s.rec.stream.startswith("combat:"):
            return
        name = s.rec.stream[len("combat:"):]
        before, after = combat_its(s.before.rules, name), combat_its(s.after.rules, name)
        view = self._views.setdefault(name, CombatView(name, [], []))
        for cid in list(before) + list(after):
            if cid not in view.participants:
                view.participants.append(cid)
        moved = [c for c in after if c in before and after[c] > before[c]]
        if not moved and before and before == after:
            instant = _instant_actor(s, before)
            moved = [instant] if instant is not None else []
        if len(moved) != 1:
            return  # the book's table has one row per action: an event that took someone's time
        actor = moved[0]
        view.rows.append(CombatRow(s.rec.position, s.summary, actor, after[actor] - before[actor], before, after,
                                   s.told))

    def views(self) -> list[CombatView]:
        return list(self._views.values())


def session_groups(steps: Iterable[Step]) -> list[tuple[Any, list[Step]]]:
    """Consecutive steps grouped by session (None: outside any session)."""
    groups: list[tuple[Any, list[Step]]] = []
    for s in steps:
        key = s.session.number if s.session else None
        if not groups or groups[-1][0] != key:
            groups.append((key, []))
        groups[-1][1].append(s)
    return groups


def xp_by_session(ledger: Iterable[LedgerEntry] | None) -> dict[Any, dict[str, list[int]]]:
    """{session: {character: [earned, spent]}} from XP ledger entries; a correction amends what was
    earned (an award of 600 corrected to 60 shows +60)."""
    out: dict[Any, dict[str, list[int]]] = {}
    for e in ledger or ():
        cell = out.setdefault(e.session, {}).setdefault(e.character, [0, 0])
        if e.kind == "spend":
            cell[1] += -e.amount
        else:
            cell[0] += e.amount
    return out


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def fudge_lines(steps: Iterable[Step]) -> list[str]:
    """The overrides, re-rolls and sealed rolls of the exported events (:mod:`.fudges`), as lines;
    none when there is none of them (a recap without fudges keeps its shape)."""
    return fudge_record_lines(s.rec for s in steps)


def fudge_record_lines(recs: Iterable[RecordedEvent]) -> list[str]:
    """:func:`fudge_lines` over the records themselves (the HTML site keeps only those it needs)."""
    report = dice_audit(recs)
    return _fudge_text(report) if report.overrides or report.rerolls or report.sealed else []


def write_markdown(camp: Any, steps: Iterable[Step], out: TextIO, *,
                   ledger: Iterable[LedgerEntry] | None = None) -> int:
    """A recap per session: heading, who was there, XP earned and spent, events, combats as tables."""
    steps = list(steps)
    names = character_names(camp, steps)
    xp = xp_by_session(ledger)
    receipts = camp.session_receipts()
    out.write(f"# {md(camp.header.name)}\n\n")
    out.write("*" + _("{rules} — {n} events — rounding: {rounding}").format(
        rules=md(camp.ruleset.title), n=len(steps), rounding=md(camp.header.rounding)) + "*\n")
    fudges = fudge_lines(steps)
    if fudges:
        out.write("\n## " + _("The GM's dice") + "\n\n" + "".join(f"- {md(line.strip())}\n" for line in fudges))
    for key, group in session_groups(steps):
        first = group[0]
        if key is None:
            out.write("\n## " + _("Outside any session") + "\n\n")
        else:
            info = first.session
            assert info is not None  # a group with a session number has its session
            title = _(": {title}").format(title=md(info.title)) if info.title else ""
            date = f" — {md(info.in_game_date)}" if info.in_game_date else ""
            out.write("\n## " + _("Session {number}").format(number=key) + f"{title}{date}\n\n")
        present: dict[str, None] = {}
        for s in group:
            present.update(dict.fromkeys(s.characters))
        if present:
            out.write("**" + _("Present:") + "** " + ", ".join(md(names.get(c, c)) for c in present) + "\n\n")
        if xp.get(key):
            parts = [f"{md(names.get(c, c))} {_signed(e)} / −{sp}" for c, (e, sp) in xp[key].items()]
            out.write("**" + _("XP earned / spent:") + "** " + " ; ".join(parts) + "\n\n")
        if key in receipts:  # the receipt of the session's end (an open session has none yet)
            out.write("**" + _("Receipt:") + f"** `{receipts[key]}`\n\n")
        for s in group:
            out.write(f"- `#{s.rec.position}` {md(s.told)}\n")  # the narration (the summary without a fold)
        for view in combats(group):
            out.write("\n### " + _("Fight: {name}").format(name=md(view.name)) + "\n\n")
            who = [md(names.get(c, c)) for c in view.participants]
            head = ([_("IT before {name}").format(name=w) for w in who] + [_("Turn of"), _("Action"), _("Duration")]
                    + [_("IT after {name}").format(name=w) for w in who])
            out.write("| " + " | ".join(head) + " |\n")
            out.write("|" + "---|" * len(head) + "\n")
            for r in view.rows:
                cells = [str(r.it_before.get(c, "")) for c in view.participants]
                cells += [md(names.get(r.actor, r.actor)), md(r.told or r.summary),
                          _signed(r.duration)]
                cells += [str(r.it_after.get(c, "")) for c in view.participants]
                out.write("| " + " | ".join(cells) + " |\n")
    dice = dice_report(s.rec for s in steps)
    if dice.groups:  # the fairness report of the dice exported (jobs/dice_report.py)
        out.write("\n" + dice_markdown(dice))
    return len(steps)


# --------------------------------------------------------------------------------------- import
@dataclass
class ImportResult:
    path: str
    name: str
    ruleset: str
    events: int
    last_hash: str


def import_jsonl(source: str | os.PathLike[str], target: str | os.PathLike[str], *,
                 progress: Progress | None = None, prepare: Callable[[str], None] | None = None) -> ImportResult:
    """Create the campaign ``target`` from an exported JSONL file of a whole campaign.

    First the whole file is checked, writing nothing (:class:`~cristal_events.exchange.HistoryCheck`:
    the hash chain and its receipt trailer, the envelope, every payload validated by the campaign's
    rules, the history folded through them, no session left open); a refusal names the line. Then
    the campaign is built in a temporary file beside ``target`` (``prepare(path)``, when given, runs
    on it once the events are committed: the CLI builds the read models there), checkpointed,
    closed, and only then renamed to ``target``, which never exists half-built. The new log holds
    the same events with the same hashes.
    """
    target = Path(target)
    if target.exists() or target.is_symlink():
        raise CristalError(_("{target} already exists; choose another path or remove it first.").format(target=target))
    if not target.parent.is_dir():
        raise CristalError(_("The folder {parent} does not exist.").format(parent=target.parent))
    sweep_stale_imports(target)
    check = check_jsonl(source, progress=progress, every=PROGRESS_EVERY)
    tmp = _temporary_path(target)
    store = Store.create(tmp, check.codec)
    try:
        # its own transaction, not one of ours: into the empty file nobody else knows of, the import
        # writes through SQLite's rollback journal (``Store.import_rows``); a changed source found
        # after it removes the whole temporary file below, so nothing is imported either way
        n = store.import_rows(map(line_row, import_lines(source)))
        if n != check.events or store.last_hash() != check.last_hash:
            raise CristalError(_("{source} changed while it was imported; nothing was imported.").format(source=source))
        if progress is not None:
            progress(n, check.events)
        if prepare is not None:
            prepare(str(tmp))
        store.checkpoint_wal()
        store.close()
        _publish(tmp, target)
    except BaseException:
        store.close()
        _remove_campaign_files(tmp)
        raise
    return ImportResult(str(target), check.header.name, check.ruleset.name, n, check.last_hash)


_IMPORTING = ".importing-"


def _temporary_path(target: Path) -> Path:
    """A new hidden file name beside ``target`` naming this process: ``.NAME.importing-PID-RANDOM``."""
    return target.with_name(f".{target.name}{_IMPORTING}{os.getpid()}-{os.urandom(4).hex()}")


def _remove_campaign_files(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def _publish(tmp: Path, target: Path) -> None:
    """Give the finished campaign its name without ever replacing a file that appeared meanwhile (a hard
    link fails on an existing name; where links are not supported, an exists check then a rename)."""
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise CristalError(_("{target} appeared while the import ran; nothing was imported.").format(target=target)) from None
    except OSError:
        if target.exists():
            raise CristalError(_("{target} appeared while the import ran; nothing was imported.").format(target=target)) from None
        os.replace(tmp, target)
        return
    tmp.unlink()


def sweep_stale_imports(target: Path) -> list[Path]:
    """Remove the temporary files that killed imports into ``target`` left (their process is gone)."""
    removed: list[Path] = []
    if os.name != "posix":  # os.kill(pid, 0) tests a process only on POSIX systems
        return removed
    for path in target.parent.glob(f".{glob_escape(target.name)}{_IMPORTING}*"):
        pid_text = path.name[len(target.name) + 1 + len(_IMPORTING):].split("-", 1)[0]
        if path.name.endswith(("-wal", "-shm", "-journal")) or not pid_text.isdigit():
            continue
        if _alive(int(pid_text)):
            continue
        _remove_campaign_files(path)
        removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True
