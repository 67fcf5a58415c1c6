"""``cristal demo``: build a sample campaign, show the party, the XP audit and the HTML timeline
(``cristal script`` is in :mod:`.script`)."""

from __future__ import annotations

import os
from pathlib import Path

import click
import msgspec

import cristal_events.sample_campaigns as sample_campaigns

from ..display import visible
from ..errors import CristalError
from ..i18n import _
from ..jobs.audit import text_lines as audit_lines
from ..jobs.outputs import output_file, previous_export
from ..jobs.page import write_html
from ..jobs.walk import walk
from ..service import Campaign
from . import script as scripts
from .audit import run_audit
from .common import echo, emit_json, emit_lines, json_option
from .export import ledger_or_none


def sample_dirs() -> tuple[Path, ...]:
    """Where samples are looked for: ./sample_campaigns (a clone), then the installed ``cristal_events.sample_campaigns``."""
    return (Path.cwd() / "sample_campaigns", Path(sample_campaigns.__file__).resolve().parent)


def find_sample(ruleset: str) -> Path:
    """The sample campaign script the ruleset declares (``Ruleset.sample_campaign``: the party of the
    book for Lois du Cristal), else the first (alphabetical) written for it."""
    from ..rulesets import get

    preferred = get(ruleset).sample_campaign
    for folder in sample_dirs():
        if not folder.is_dir():
            continue
        paths = sorted(folder.glob("*.toml"), key=lambda p: (p.name != preferred, p.name))
        for path in paths:
            try:
                if scripts.load(path).ruleset == ruleset:
                    return path
            except scripts.ScriptError:
                continue
    raise CristalError(_("No {ruleset} sample campaign exists in sample_campaigns/ yet; give one with --sample "
                         "FILE.").format(ruleset=ruleset))


def _party(camp: Campaign) -> list[str]:
    """The player characters (those with a player), else every character."""
    chars = camp.ruleset.characters(camp.state().rules)
    players = [cid for cid, c in chars.items() if getattr(c, "player", "")]
    return players or list(chars)


def _sheet_text(camp: Campaign, cid: str) -> str:
    """``cid``'s sheet now, as ``cristal sheet CID`` prints it (a sentence when it has none): built and
    rendered by the ruleset itself (``Ruleset.sheet`` / ``render_sheet``), not by running the CLI."""
    world = camp.state()
    settings = camp.ruleset.settings(msgspec.structs.replace(camp.header, settings=world.core.settings))
    try:
        data = camp.ruleset.sheet(world.rules, cid, settings=settings, rounding=camp.header.rounding)
        return "\n".join(camp.ruleset.render_sheet(data)).rstrip()
    except CristalError as exc:
        return visible(_("(no sheet for {cid}: {visible})").format(cid=cid, visible=visible(exc)))


#: the file in a demo folder naming the campaigns demo built there: {"campaigns": {file name: campaign_id}}
DEMO_MARK = ".cristal-demo.json"


def _marks(folder: Path) -> dict[str, str]:
    try:
        data = msgspec.json.decode((folder / DEMO_MARK).read_bytes(), type=dict[str, dict[str, str]])
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return {}
    return data.get("campaigns", {})


def _mark(folder: Path, db: Path, campaign_id: str) -> None:
    """Record that demo built ``db`` (its campaign id), so that a later demo may replace it."""
    marks = {**_marks(folder), db.name: campaign_id}
    tmp = folder / f"{DEMO_MARK}.{os.urandom(4).hex()}"
    tmp.write_bytes(msgspec.json.encode({"campaigns": marks}))
    os.replace(tmp, folder / DEMO_MARK)


def built_by_demo(folder: Path, db: Path) -> bool:
    """True when ``db`` is the campaign a previous demo built there (its campaign id is the one marked)."""
    expected = _marks(folder).get(db.name)
    if not expected or not db.is_file():
        return False
    try:
        with Campaign.open(db, readonly=True) as camp:
            return camp.header.campaign_id == expected
    except CristalError:
        return False


def replace_previous_demo(folder: Path, db: Path, page: Path) -> None:
    """Remove a previous demo's campaign before a new one is built; refuse, touching nothing, when the
    campaign file or the page of that name is not one demo made."""
    companions = [Path(str(db) + s) for s in ("-wal", "-shm", "-journal")]
    if db.exists() or db.is_symlink():
        if not built_by_demo(folder, db):
            raise CristalError(_("{db} exists and was not built by cristal demo; move it away or give demo "
                                 "another folder; nothing was written.").format(db=db))
    elif any(c.exists() for c in companions) and db.name not in _marks(folder):
        raise CristalError(_("{next} is left from another database; move it away or give demo another folder; "
                             "nothing was written.").format(next=next(c for c in companions if c.exists())))
    if page.exists() and (page.is_dir() or not previous_export(page, "html")):
        raise CristalError(_("{page} exists and is not a page cristal demo wrote; move it away or give demo "
                             "another folder; nothing was written.").format(page=page))
    for p in (db, *companions):
        p.unlink(missing_ok=True)


@click.command("demo")
@click.argument("directory", required=False, default="cristal-demo", metavar="[DIR]")
@click.option("--ruleset", type=click.Choice(["cristal", "illergan"]), default="cristal", show_default=True,
              help="Which rules' sample campaign to build.")
@click.option("--sample", type=click.Path(dir_okay=False, exists=True), default=None,
              help="Build this campaign script instead of the bundled sample.")
@json_option
@click.pass_context
def demo_cmd(ctx: click.Context, directory: str, ruleset: str, sample: str | None, as_json: bool) -> None:
    """Build a sample campaign in DIR (default ./cristal-demo), print the party's sheets and the
    XP audit, and write the HTML timeline. A previous demo's files in DIR are replaced; any other
    file of the same name (a campaign demo did not build, a page it did not write) is left alone and
    the demo refused.

    Example: cristal demo /tmp/cristal --ruleset cristal
    """
    path = Path(sample) if sample else find_sample(ruleset)
    script = scripts.load(path)
    folder = Path(directory)
    if folder.exists() and not folder.is_dir():
        raise CristalError(_("{folder} is a file, not a folder; give demo a folder to build in; nothing was "
                             "written.").format(folder=folder))
    db, page = folder / f"{path.stem}.db", folder / f"{path.stem}.html"
    if folder.is_dir():
        replace_previous_demo(folder, db, page)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CristalError(_("Cannot create the folder {folder}: {strerror}; nothing was written.").format(folder=folder, strerror=exc.strerror)) from None
    ran = scripts.run(script, db, actor=ctx.obj["actor"])
    camp = Campaign.open(db, readonly=True)
    ctx.call_on_close(camp.close)
    _mark(folder, db, camp.header.campaign_id)
    last = camp.store.last_position()
    if as_json:
        report = run_audit(camp)
        with output_file(page, "html") as fh:
            write_html(camp, walk(camp), fh, ledger=ledger_or_none(camp))
        emit_json({"campaign": script.header["name"], "sample": str(path), "db": str(db), "html": str(page),
                   "commands": len(ran), "events": last, "sessions": camp.state().core.sessions,
                   "party": _party(camp), "anomalies": len(report.anomalies)})
        return
    echo(_("Built « {name} » from {path}: {commands} commands, {events} events, {sessions} sessions, in {db}.").format(
        name=script.header["name"], path=path, commands=len(ran), events=last, sessions=camp.state().core.sessions,
        db=db))
    for cid in _party(camp):
        echo("")
        emit_lines(_sheet_text(camp, cid).split("\n"))
    echo("")
    report = run_audit(camp)
    emit_lines(audit_lines(report))
    with output_file(page, "html") as fh:
        write_html(camp, walk(camp), fh, ledger=ledger_or_none(camp))
    echo("")
    echo(_("HTML timeline written to {page} (open it in a browser).").format(page=page))
    echo(_("Next: cristal --db {db} replay --session 1").format(db=db))


COMMANDS = [demo_cmd]
