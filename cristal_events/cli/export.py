"""``cristal export timeline`` (jsonl, csv, md, html) and ``cristal import FILE``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from ..errors import CristalError
from ..i18n import _, ngettext
from ..jobs import exports, site_cache
from ..jobs.outputs import check_folder, check_output, output_file, output_folder
from ..jobs.page import export_site, write_html
from ..jobs.walk import resolve_range, walk
from ..service import Campaign
from ..xp_ledger import LedgerEntry
from .common import POSITION, catch_up, echo, emit_json, json_option, tty_progress


def ledger_or_none(camp: Campaign) -> list[LedgerEntry] | None:
    """The XP ledger entries (the caught-up read model's, else computed in memory), or None when the
    rules declare no ``xp_ledger`` among the tables their exports include (``Ruleset.export_tables``)."""
    from cristal_events import projections

    from ..jobs.audit import LEDGER_TABLE, find_ledger, ledger_rows

    if LEDGER_TABLE not in camp.ruleset.export_tables:
        return None
    return ledger_rows(camp, find_ledger(projections.for_campaign(camp)))


def export_timeline(camp: Campaign, fmt: str, out: Any, *, session: int | None = None,
                    character: str | None = None, progress: Any = None) -> int:
    """Write the timeline of ``camp`` to ``out`` in ``fmt``; return the number of events written."""
    after, end = resolve_range(camp, session=session)
    steps = walk(camp, after=after, until=end, character=character, progress=progress, fold=fmt != "jsonl")
    match fmt:
        case "jsonl":
            return exports.write_jsonl(steps, out)
        case "csv":
            return exports.write_csv(steps, out)
        case "md":
            return exports.write_markdown(camp, steps, out, ledger=_session_rows(camp, session, character))
        case "html" if callable(out):  # a folder: the site (index, a page per session and per character)
            return export_site(camp, out, after=after, until=end, character=character, progress=progress,
                               ledger=_session_rows(camp, session, character))
        case "html":
            return write_html(camp, steps, out, ledger=_session_rows(camp, session, character))
    raise CristalError(_("Unknown export format {fmt!r}; use one of {items}.").format(fmt=fmt, items=', '.join(exports.FORMATS)))


def _session_rows(camp: Campaign, session: int | None, character: str | None) -> list[LedgerEntry]:
    rows = ledger_or_none(camp) or []
    return [r for r in rows if (session is None or r.session == session)
            and (character is None or r.character == character)]


@click.group("export")
def export_group() -> None:
    """Export the campaign.

    Example: cristal export timeline --format html -o chronique
    """


@export_group.command("timeline")
@click.option("--format", "fmt", type=click.Choice(exports.FORMATS), required=True,
              help="jsonl: verifiable and importable; csv: spreadsheets; md: a recap per session; "
                   "html: a self-contained site in the folder -o names (one page on stdout).")
@click.option("-o", "--output", type=click.Path(), default=None,
              help="The file to write (default: stdout); for html, the folder of the site.")
@click.option("--session", type=POSITION, default=None, help="Only this session.")
@click.option("--character", default=None, metavar="ID", help="Only the events that concern this character.")
@click.option("--force", is_flag=True,
              help="With -o: replace an existing file that is not a previous export of this format "
                   "(never a campaign).")
@click.option("--full", is_flag=True,
              help="HTML with -o: write every page again, even when the folder holds an earlier export of "
                   "this campaign that this one could go on from.")
@click.option("--json", "as_json", is_flag=True, help="With -o: say what was written as JSON on stdout.")
@click.pass_context
def export_timeline_cmd(ctx: click.Context, fmt: str, output: str | None, session: int | None,
                        character: str | None, force: bool, full: bool, as_json: bool) -> None:
    """Export the campaign's timeline as JSONL, CSV, Markdown or HTML.

    A whole-campaign or one-session JSONL export verifies offline (cristal verify --file); a
    whole-campaign one imports into a new campaign (cristal import). User text is escaped in HTML
    and Markdown; CSV cells starting with = + - @ are neutralised.

    With -o the file is written beside its name and renamed over it at the end. It never replaces a
    campaign (any SQLite file), nor, without --force, an existing file that is not a previous export
    of the same format (a JSONL of exported events, a CSV with this header row, a Markdown file
    ending with the export's marker comment).

    HTML with -o writes a folder: index.html (the sessions, the characters), one page per session and
    one per character with its charts; no script, no network. The folder must be new, empty or a
    previous HTML export, and a file in it that an export did not write is never replaced, even
    with --force. Without -o, HTML is the same content on one page.

    A whole-campaign HTML export into the folder of an earlier one of the same campaign (same
    language, no --session or --character) keeps the pages of the sessions it already wrote and
    walks only what the log gained since; the files are the same as a whole export's. A folder
    whose cache (.cristal-site-cache) does not match the log, or a page edited since, gives a whole
    export; --full forces one.

    Example: cristal export timeline --format md --session 2 -o session2.md

    Example: cristal export timeline --format html -o chronique --full
    """

    site = fmt == "html" and output is not None
    target: Path | None
    if site:
        target = check_folder(output or "", campaign=ctx.obj["db"])
    else:
        target = check_output(output, fmt, campaign=ctx.obj["db"], force=force) if output is not None else None
    camp = Campaign.open(ctx.obj["db"], readonly=True)
    ctx.call_on_close(camp.close)
    if target is None:
        export_timeline(camp, fmt, sys.stdout, session=session, character=character,  # a bar only beside a pipe
                        progress=None if sys.stdout.isatty() else tty_progress("export"))
        return
    if site:
        if session is None and character is None:  # a whole-campaign site: it may go on from the folder's
            n, done = site_cache.export_folder(camp, target, ledger=_session_rows(camp, None, None), full=full,
                                               progress=tty_progress("export"))
            incremental, kept = done.incremental, done.kept
        else:
            with output_folder(target, replacing=lambda: site_cache.forget(target)) as emit:
                n = export_timeline(camp, fmt, emit, session=session, character=character,
                                    progress=tty_progress("export"))
            incremental, kept = False, 0
        if as_json:
            emit_json({"path": output, "format": fmt, "events": n, "index": str(target / "index.html"),
                       "incremental": incremental, "kept": kept})
        else:
            echo(_("Wrote {n} events to {index} and its pages ({fmt}).").format(n=n, index=target / "index.html",
                                                                                fmt=fmt), err=True)
            if incremental:
                echo(ngettext("{kept} session page kept from the previous export.",
                              "{kept} session pages kept from the previous export.", kept).format(kept=kept),
                     err=True)
        return
    with output_file(target, fmt) as fh:
        n = export_timeline(camp, fmt, fh, session=session, character=character,
                            progress=tty_progress("export"))
    if as_json:
        emit_json({"path": output, "format": fmt, "events": n})
    else:
        echo(_("Wrote {n} events to {output} ({fmt}).").format(n=n, output=output, fmt=fmt), err=True)


@click.command("import")
@click.argument("file", type=click.Path(dir_okay=False))
@click.argument("path", required=False)
@json_option
@click.pass_context
def import_cmd(ctx: click.Context, file: str, path: str | None, as_json: bool) -> None:
    """Create a new campaign (PATH, default --db: a file or a postgresql:// URL) from a whole-campaign JSONL export.

    The whole file is checked first, writing nothing: it must verify (and match its receipt line),
    every event is validated and folded by the campaign's rules, and its last session must be ended;
    a refusal names the line. The new log has the same events and the same hashes; it is built with
    its read models in a temporary file and renamed into place at the end; what a read model cannot
    hold is skipped with a warning on stderr (the import completes; 'cristal rebuild' repairs it).

    Example: cristal import taverne.jsonl copie.db
    """

    def read_models(built: str) -> None:  # what a read model cannot hold is a warning, not a failed import
        with Campaign.open(built) as camp:
            catch_up(camp, progress=tty_progress("read models"))

    target = path or ctx.obj["db"]
    from ..store import is_postgres

    if is_postgres(target):  # checked and built as a file first, then copied whole (cristal copy)
        import tempfile
        from pathlib import Path

        from ..jobs.copy import copy_campaign

        with tempfile.TemporaryDirectory(prefix="cristal-import-") as folder:
            built = str(Path(folder) / "import.db")
            result = exports.import_jsonl(file, built, progress=tty_progress("import"))
            copy_campaign(built, target, progress=tty_progress("read models"))
    else:
        result = exports.import_jsonl(file, target, progress=tty_progress("import"),
                                      prepare=read_models)
    if as_json:
        emit_json(result.__dict__)
    else:
        echo(_("Imported {events} events into {target} (campaign « {name} », rules {ruleset}); last hash "
               "{last_hash}….").format(events=result.events, target=target, name=result.name, ruleset=result.ruleset, last_hash=result.last_hash[:16]))


COMMANDS = [export_group, import_cmd]
