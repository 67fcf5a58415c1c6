"""``cristal demo`` (build a sample campaign, show the party, the XP audit and the HTML timeline) and
``cristal script`` (check or run a campaign script)."""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from pathlib import Path

import click

from ..display import visible
from ..errors import CristalError
from ..jobs import script as scripts
from ..jobs.audit import text_lines as audit_lines
from ..jobs.page import write_html
from ..jobs.walk import walk
from ..service import Campaign
from .audit import run_audit
from .common import echo, emit_json, emit_lines, json_option
from .export import ledger_or_none



def sample_dirs() -> tuple[Path, ...]:
    """Where samples are looked for: ./sample_campaigns (a clone), then next to the package."""
    return (Path.cwd() / "sample_campaigns", Path(__file__).resolve().parents[2] / "sample_campaigns")


#: the sample each ruleset's demo builds first (the party of the book for Lois du Cristal)
PREFERRED = {"cristal": "compagnie_du_cristal.toml", "illergan": "illergan_gue_des_loups.toml"}


def find_sample(ruleset: str) -> Path:
    """The ruleset's preferred sample campaign script, else the first (alphabetical) written for it."""
    for folder in sample_dirs():
        if not folder.is_dir():
            continue
        paths = sorted(folder.glob("*.toml"), key=lambda p: (p.name != PREFERRED.get(ruleset), p.name))
        for path in paths:
            try:
                if scripts.load(path).ruleset == ruleset:
                    return path
            except scripts.ScriptError:
                continue
    raise CristalError(f"No {ruleset} sample campaign exists in sample_campaigns/ yet; "
                       "give one with --sample FILE.")


def _party(camp: Campaign) -> list[str]:
    """The player characters (those with a player), else every character."""
    chars = camp.ruleset.characters(camp.state().rules)
    players = [cid for cid, c in chars.items() if getattr(c, "player", "")]
    return players or list(chars)


def _sheet_text(db: Path, cid: str) -> str:
    from . import cli

    out = io.StringIO()
    with redirect_stdout(out):
        try:
            cli.main(args=["--db", str(db), "sheet", cid], prog_name="cristal", standalone_mode=False)
        except click.ClickException as exc:
            return visible(f"(no sheet for {cid}: {exc.format_message()})")
    return out.getvalue().rstrip()


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
    XP audit, and write the HTML timeline. A previous demo's files in DIR are replaced.

    Example: cristal demo /tmp/cristal --ruleset cristal
    """
    path = Path(sample) if sample else find_sample(ruleset)
    script = scripts.load(path)
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    db, page = folder / f"{path.stem}.db", folder / f"{path.stem}.html"
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    ran = scripts.run(script, db, actor=ctx.obj["actor"])
    camp = Campaign.open(db, readonly=True)
    ctx.call_on_close(camp.close)
    last = camp.store.last_position()
    if as_json:
        report = run_audit(camp)
        with open(page, "w", encoding="utf-8") as fh:
            write_html(camp, walk(camp), fh, ledger=ledger_or_none(camp))
        emit_json({"campaign": script.header["name"], "sample": str(path), "db": str(db), "html": str(page),
                   "commands": len(ran), "events": last, "sessions": camp.state().core.sessions,
                   "party": _party(camp), "anomalies": len(report.anomalies)})
        return
    echo(f"Built « {script.header['name']} » from {path}: {len(ran)} commands, {last} events, "
               f"{camp.state().core.sessions} sessions, in {db}.")
    for cid in _party(camp):
        echo("")
        emit_lines(_sheet_text(db, cid).split("\n"))
    echo("")
    report = run_audit(camp)
    emit_lines(audit_lines(report))
    with open(page, "w", encoding="utf-8") as fh:
        write_html(camp, walk(camp), fh, ledger=ledger_or_none(camp))
    echo("")
    echo(f"HTML timeline written to {page} (open it in a browser).")
    echo(f"Next: cristal --db {db} replay --session 1")


@click.group("script")
def script_group() -> None:
    """Campaign scripts: TOML files whose steps are cristal commands (see docs/exports.md).

    Example: cristal script run sample_campaigns/compagnie_du_cristal.toml taverne.db
    """


@script_group.command("check")
@click.argument("file", type=click.Path(dir_okay=False))
@json_option
def script_check(file: str, as_json: bool) -> None:
    """Check a campaign script without running it (exit 1 naming the line and the reason). A script may
    only change the campaign it builds: a step that would read or write another file is refused.

    Example: cristal script check ma_campagne.toml
    """
    s = scripts.load(file)
    scripts.check(s)
    if as_json:
        emit_json({"file": file, "steps": len(s.steps), "ruleset": s.ruleset, "ok": True})
    else:
        echo(f"{file}: {len(s.steps)} steps for the {s.ruleset} rules, all known commands and options "
             "a script may use (none reads or writes another file).")


@script_group.command("run")
@click.argument("file", type=click.Path(dir_okay=False))
@click.argument("path", required=False)
@json_option
@click.pass_context
def script_run(ctx: click.Context, file: str, path: str | None, as_json: bool) -> None:
    """Build a new campaign (PATH, default --db) from a script; a refused step stops it, naming its line,
    and leaves no campaign behind.

    Example: cristal script run sample_campaigns/compagnie_du_cristal.toml compagnie.db
    """
    target = path or ctx.obj["db"]
    ran = scripts.run(scripts.load(file), target, actor=ctx.obj["actor"])
    if as_json:
        emit_json([{"line": r.line, "run": r.run, "positions": list(r.positions)} for r in ran])
    else:
        echo(f"Built {target} from {file}: {len(ran)} commands, positions 1 to {ran[-1].positions[1] if ran else 1}.")


COMMANDS = [demo_cmd, script_group]
