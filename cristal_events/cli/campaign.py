"""Campaign-level commands: init, session, log, verify, receipt, schema, note, rebuild."""

from __future__ import annotations

from typing import Any

import click
import msgspec

from ..errors import CristalError, EventDecodeError, NotACampaign
from ..events import SessionEnded, SessionSalted, SessionStarted
from ..i18n import _
from ..projections.timeline import summary as timeline_summary
from ..receipts import Receipt, parse_receipt, read_receipts
from ..records import RecordedEvent
from ..rounding import MODES
from ..rulesets import names as ruleset_names
from ..service import FUDGE_POLICIES, Campaign, RecordNote
from .common import POSITION, SEED, actor, echo, emit_json, json_option, open_campaign, to_json, tty_progress
from .settings import InitCommand, parse_settings


class RulesetChoice(click.Choice):
    """``--ruleset``: one of the rulesets this engine can run, listed when the option is used (a value,
    ``--help``, a completion), not when this module is imported: the list includes the installed
    packages' entry points, whose scan (importlib.metadata) would cost every one-shot ``note`` its time."""

    def __init__(self) -> None:
        self.case_sensitive = True

    @property
    def choices(self) -> tuple[str, ...]:  # type: ignore[override]  # read, never assigned
        return tuple(ruleset_names())


@click.command("init", cls=InitCommand)
@click.argument("path", required=False)
@click.option("--name", required=True, help="The campaign's name.")
@click.option("--ruleset", type=RulesetChoice(), default="cristal", show_default=True,
              help="cristal = Les Lois du Cristal; illergan = the Dé100 rules of Illergan.")
@click.option("--rounding", type=click.Choice(MODES), default="round", show_default=True,
              help="round = half away from zero after each operation (the book's advice); truncate = drop decimals.")
@click.option("--seed", type=SEED, default=None, help="Seed of the engine's dice outside sessions (reproducible rolls).")
@click.option("--set", "settings", multiple=True, metavar="KEY=VALUE",
              help="A ruleset setting the book leaves to the game master (listed below; docs/rulings.md).")
@click.option("--fudge-policy", "fudge_policy", type=click.Choice(FUDGE_POLICIES), default="disclosed",
              show_default=True,
              help="What 'cristal override' may do: forbidden = refused; disclosed = shown to everyone at once; "
                   "sealed = revealed with the session's secret rolls (changed later only by a visible "
                   "'cristal settings --set fudge_policy=...').")
@json_option
@click.pass_context
def init_cmd(ctx: click.Context, path: str | None, name: str, ruleset: str, rounding: str, seed: int | None,
             settings: tuple[str, ...], fudge_policy: str, as_json: bool) -> None:
    """Create a new campaign file (PATH, default --db), or a campaign in PostgreSQL (a postgresql://...?campaign=NAME URL).

    Example: cristal init taverne.db --name "La Taverne" --ruleset cristal --rounding round --seed 7
    """
    target = path or ctx.obj["db"]
    chosen = parse_settings(settings)
    policy = fudge_policy if ctx.get_parameter_source("fudge_policy") != click.core.ParameterSource.DEFAULT \
        or "fudge_policy" not in chosen else None  # --set fudge_policy=... counts when --fudge-policy is not typed
    camp = Campaign.create(target, name=name, ruleset=ruleset, rounding=rounding, seed=seed,
                           settings=chosen, actor=actor(ctx), fudge_policy=policy)
    ctx.call_on_close(camp.close)
    if as_json:
        emit_json({"path": target, "campaign_id": camp.header.campaign_id, "ruleset": ruleset, "rounding": rounding,
                   "settings": camp.header.settings})
    else:
        echo(_("Created campaign « {name} » ({title}, rounding {rounding}) in {target}.").format(name=name, title=camp.ruleset.title, rounding=rounding, target=target))


@click.group("session")
def session_group() -> None:
    """Open and close play sessions; events in between carry the session number.

    Example: cristal session start --title "La taverne" --date "3 Floréal"
    """


@session_group.command("start")
@click.option("--title", default="", help="A title for the session.")
@click.option("--date", "in_game_date", default="", help="The in-game date.")
@click.option("--salt", default="", help="Players' entropy mixed into every engine die of the session.")
@json_option
@click.pass_context
def session_start(ctx: click.Context, title: str, in_game_date: str, salt: str, as_json: bool) -> None:
    """Start the next session and print its dice commitment (players keep it; docs/verifiable-dice.md).

    Example: cristal session start --title "Arrivée" --date "1er Mai" --salt "le mot de Lya"
    """
    camp = open_campaign(ctx, write=True)
    recs = camp.start_session(title, in_game_date, salt=salt, actor=actor(ctx))
    ev = recs[0].event
    assert isinstance(ev, SessionStarted)
    if as_json:
        emit_json({"session": ev.number, "position": recs[0].position, "seed_commitment": ev.seed_commitment,
                   "salt": ev.salt})
    else:
        echo(_("Session {number} started at position {position}.").format(number=ev.number, position=recs[0].position))
        echo(_("Dice commitment: {seed_commitment}").format(seed_commitment=ev.seed_commitment))


@session_group.command("salt")
@click.argument("salt")
@json_option
@click.pass_context
def session_salt(ctx: click.Context, salt: str, as_json: bool) -> None:
    """Mix the players' entropy into the open session's dice, after its commitment was shown and
    before its first engine die. Example: cristal session salt "7 pommes et un dragon" """
    camp = open_campaign(ctx, write=True)
    recs = camp.salt_session(salt, actor=actor(ctx))
    ev = recs[0].event
    assert isinstance(ev, SessionSalted)
    if as_json:
        emit_json({"session": ev.number, "position": recs[0].position, "salt": ev.salt})
    else:
        echo(_("Salt added to session {number} at position {position}.").format(number=ev.number, position=recs[0].position))


@session_group.command("end")
@json_option
@click.pass_context
def session_end(ctx: click.Context, as_json: bool) -> None:
    """End the open session (reveals its dice seed). Example: cristal session end"""
    camp = open_campaign(ctx, write=True)
    recs = camp.end_session(actor=actor(ctx))
    end = recs[-1]  # after the reveals of the session's secret rolls
    ev = end.event
    assert isinstance(ev, SessionEnded)
    revealed = [r for r in recs if r.type == "roll.revealed"]
    receipt = f"{end.position}:{end.hash}"  # keep it: 'cristal verify --receipt' checks it later
    if as_json:
        emit_json({"session": ev.number, "position": end.position, "seed_reveal": ev.seed_reveal,
                   "receipt": receipt, "revealed": [r.event.sealed for r in revealed]})  # type: ignore[union-attr]
    else:
        for r in recs[:-1]:
            echo(f"{r.position:>6}  {camp.summarize(r)}")
        if revealed:
            echo(_("{count} secret roll(s) revealed.").format(count=len(revealed)))
        echo(_("Session {number} ended at position {position}.").format(number=ev.number, position=end.position))
        echo(_("Receipt: {receipt}").format(receipt=receipt))


def log_line(camp: Campaign, rec: RecordedEvent) -> str:
    sess = f"s{rec.session}" if rec.session is not None else "--"
    return f"{rec.position:>6}  {sess:>4}  {rec.stream:<22} {rec.type:<24} {rec.actor:<8} {timeline_summary(camp, rec)}"


def record_json(camp: Campaign, rec: RecordedEvent) -> dict[str, Any]:
    return {
        "position": rec.position, "event_id": rec.event_id, "stream": rec.stream, "version": rec.version,
        "type": rec.type, "schema_version": rec.schema_version, "recorded_at": rec.recorded_at,
        "session": rec.session, "actor": rec.actor, "causation_id": rec.causation_id,
        "correlation_id": rec.correlation_id, "payload": msgspec.json.decode(rec.payload),
        "summary": timeline_summary(camp, rec), "prev_hash": rec.prev_hash, "hash": rec.hash,
    }


@click.command("log")
@click.option("--stream", default=None, help="Only this stream (campaign, character:thor, combat:taverne ...).")
@click.option("--type", "type_", default=None, help="Only this event type (e.g. xp.awarded).")
@click.option("--session", type=POSITION, default=None, help="Only this session's events.")
@click.option("--after", type=POSITION, default=0, show_default=True, help="Only events after this position.")
@json_option
@click.pass_context
def log_cmd(ctx: click.Context, stream: str | None, type_: str | None, session: int | None, after: int,
            as_json: bool) -> None:
    """Print the event log, one readable line per event (JSON Lines with --json).

    Example: cristal log --session 2 --stream character:thor
    """
    import sys

    camp = Campaign.open(ctx.obj["db"], readonly=True)
    ctx.call_on_close(camp.close)
    progress = None if sys.stdout.isatty() else tty_progress("log")  # to a file or a pipe: the bar on stderr
    last = camp.store.last_position()
    total = max(last - after, 0)
    for n, rec in enumerate(camp.store.read_all(after=after, stream=stream, type=type_, session=session)):
        if progress is not None and n % 1000 == 999:
            progress(rec.position - after, total)
        if as_json:
            click.echo(to_json(record_json(camp, rec)))
        else:
            echo(log_line(camp, rec))
    if progress is not None:
        progress(total, total)


def _given_receipts(receipt: tuple[str, ...], receipts_file: str | None) -> list[Receipt]:
    out = [parse_receipt(r) for r in receipt]
    if receipts_file:
        out += read_receipts(receipts_file)
    return out


@click.command("verify")
@click.option("--file", "file_", type=click.Path(dir_okay=False), default=None,
              help="Verify an exported JSONL timeline offline instead of the campaign.")
@click.option("--rolls", is_flag=True,
              help="Also re-derive every engine roll of the closed sessions from their revealed seeds.")
@click.option("--receipt", "receipt", multiple=True, metavar="POSITION:HASH",
              help="A receipt kept from 'session end' or 'cristal receipt': the log must still hold that "
                   "hash at that position (repeatable).")
@click.option("--receipts", "receipts_file", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="A file of receipts, one a line, alone or as printed ('Reçu : POSITION:HASH'); blank "
                   "lines and # comments allowed.")
@json_option
@click.pass_context
def verify_cmd(ctx: click.Context, file_: str | None, rolls: bool, receipt: tuple[str, ...],
               receipts_file: str | None, as_json: bool) -> None:
    """Check the hash chain, the append-only triggers, the migrations, the snapshots and the read models.

    Exit 1 naming the first bad position when anything does not verify. With --receipt, also check
    that the log still holds each receipt's hash at its position: the one check that catches a log
    rewritten whole with its chain recomputed, or cut short (docs/reliability.md). With --rolls,
    also check that the engine's dice were not fudged (docs/verifiable-dice.md); entered rolls are
    skipped. Progress is shown on stderr when it is a terminal.

    Example: cristal verify --rolls --receipt 40:3f5a... --json
    """
    from ..exchange import verify_jsonl

    given = _given_receipts(receipt, receipts_file)
    if file_:
        if rolls:
            raise CristalError(_("--rolls checks a campaign file; it cannot be combined with --file."))
        report = verify_jsonl(file_, given)
        problems = list(report.problems)
        result: dict[str, Any] = msgspec.to_builtins(report)
    else:
        from cristal_events.projections import runner

        camp: Campaign | None
        try:
            camp = Campaign.open(ctx.obj["db"], readonly=True)
        except (EventDecodeError, NotACampaign):
            # a tampered header can make the campaign unreadable: the chain still names the position
            from ..store import open_store

            store = open_store(ctx.obj["db"], readonly=True)
            ctx.call_on_close(store.close)
            bare = store.verify()
            if bare.ok:
                raise
            camp = None
        else:
            ctx.call_on_close(camp.close)
        if camp is None:
            problems = list(bare.problems)
            result = {**msgspec.to_builtins(bare), "first_bad_position": bare.first_bad_position,
                      "ok": not problems, "problems": problems}
        else:
            checked = camp.verify(receipts=given, snapshots=True, rolls=rolls, read_models=runner.verify,
                                  progress_for=lambda stage: tty_progress(f"verify: {stage}"))
            problems = checked.problems
            result = {**msgspec.to_builtins(checked.chain), "first_bad_position": checked.first_bad_position}
            for key in ("receipts", "snapshots"):
                if getattr(checked, key) is not None:
                    result[key] = getattr(checked, key)
            result |= {"ok": checked.ok, "problems": problems}
            if rolls:
                result["rolls"] = msgspec.to_builtins(checked.rolls)
    if as_json:
        emit_json(result)
    elif not problems and file_:  # only what was checked: the file's chain, its trailer, the receipts given
        own = (_("its receipt {receipt} names its last event").format(receipt=result["receipt"]) if result["receipt"]
               else _("it carries no receipt"))
        kept = _("; {n} receipt(s) given found in it").format(n=len(given)) if given else ""
        echo(_("OK: {result} events in {file}, the file's hash chain intact; {own}{kept}.").format(result=result['events'], file=file_, own=own, kept=kept))
    elif not problems:
        kept = _(", {n} receipt(s) found in the log").format(n=len(given)) if given else ""
        echo(_("OK: {result} events, hash chain intact, triggers present, migrations intact, snapshots match "
               "the log{kept}, read models match.").format(result=result['events'], kept=kept))
        if "rolls" in result:
            r = result["rolls"]
            legacy = (_("; {legacy} checked with the legacy scheme (docs/verifiable-dice.md).").format(
                legacy=r["legacy"]) if r["legacy"] else ".")
            echo(_("OK: {checked} engine rolls of {sessions} closed session(s) re-derived from their revealed seeds; "
                   "{entered} entered at the table, {pending} in an open session, {unverifiable} without a public "
                   "seed").format(checked=r["checked"], sessions=r["sessions"], entered=r["entered"],
                                  pending=r["pending"], unverifiable=r["unverifiable"]) + legacy)
            if r["revealed"] or r["sealed"]:
                echo(_("OK: {revealed} secret roll(s) revealed and checked against their commitments; "
                       "{sealed} still sealed.").format(revealed=r["revealed"], sealed=r["sealed"]))
    if problems:
        if not as_json:
            first = result.get("first_bad_position")
            where = _(" at position {position}").format(position=first) if first else ""
            if file_:
                echo(_("Error: the file does not verify{where}: {problem}.").format(where=where, problem=problems[0]),
                     err=True)
            else:
                echo(_("Error: the campaign does not verify{where}: {problem}.").format(where=where,
                                                                                        problem=problems[0]), err=True)
        ctx.exit(1)


@click.command("receipt")
@json_option
@click.pass_context
def receipt_cmd(ctx: click.Context, as_json: bool) -> None:
    """Print the receipt of the log's last event: POSITION:HASH. Keep it outside the campaign file;
    'cristal verify --receipt POSITION:HASH' later proves the log up to there was not changed.

    Example: cristal receipt >> recus.txt
    """
    camp = Campaign.open(ctx.obj["db"], readonly=True)
    ctx.call_on_close(camp.close)
    r = camp.receipt()
    if as_json:
        emit_json({"receipt": str(r), "position": r.position, "hash": r.hash})
    else:
        echo(_("Receipt: {receipt}").format(receipt=r))


@click.command("schema")
@click.option("--ruleset", type=RulesetChoice(), default=None,
              help="Whose events (default: the --db campaign's ruleset, else cristal).")
@click.option("--json", "as_json", is_flag=True, help="Compact JSON on one line (the default is indented).")
@click.pass_context
def schema_cmd(ctx: click.Context, ruleset: str | None, as_json: bool) -> None:
    """Print the JSON Schema of every event type (generated by msgspec).

    Example: cristal schema --ruleset illergan > events.schema.json
    """
    from ..rulesets import get
    from ..service import codec_for
    from . import campaign_ruleset

    name = ruleset or campaign_ruleset(ctx.obj["db"]) or "cristal"
    text = msgspec.json.encode(codec_for(get(name)).json_schema())
    click.echo((text if as_json else msgspec.json.format(text)).decode())


@click.command("note")
@click.argument("text")
@click.option("--topic", default="", help="What the note is about (a ruling, an error noted ...).")
@click.option("--private", is_flag=True, help="For the game master only: left out of the players' recap.")
@json_option
@click.pass_context
def note_cmd(ctx: click.Context, text: str, topic: str, private: bool, as_json: bool) -> None:
    """Record a game master's note or ruling in the log (never changes the past). A --private note is
    left out of the players' view of 'cristal recap' (the log itself is the game master's).

    Example: cristal note "Thor's 600 XP should have been 60; corrected at position 14" --topic erreur
    """
    camp = open_campaign(ctx, write=True)
    recs = camp.execute(RecordNote(text=text, topic=topic, private=private), actor=actor(ctx))
    if as_json:
        emit_json({"position": recs[0].position, "type": recs[0].type, "session": recs[0].session})
    else:
        echo(_("Note recorded at position {position}.").format(position=recs[0].position))


@click.command("rebuild")
@json_option
@click.pass_context
def rebuild_cmd(ctx: click.Context, as_json: bool) -> None:
    """Drop every read model and snapshot and rebuild them from the log (a snapshot that did not
    match the log is named on stderr).

    What a read model cannot hold (a number an older engine let into the log) is skipped, named
    by its position in a warning on stderr, and the rebuild completes.

    Example: cristal rebuild
    """
    from cristal_events.projections import runner

    camp = open_campaign(ctx)
    problems: list[str] = []
    snaps = camp.rebuild_snapshots(progress=tty_progress("snapshots"))
    counts = runner.rebuild(camp, progress=tty_progress("rebuild"),
                                        problems=problems)
    if as_json:
        emit_json({**counts, "snapshots": {"written": snaps.written,
                                           "replaced": [p.problem for p in snaps.replaced]}})
    else:
        for p in snaps.replaced:
            echo(_("Warning: {problem}; replaced by a snapshot folded from the log.").format(problem=p.problem), err=True)
        read_models = ", ".join(_("{name} ({n} events)").format(name=k, n=v) for k, v in counts.items())
        echo(_("Rebuilt {read_models}, {n} snapshot(s).").format(read_models=read_models, n=snaps.written))
    for problem in problems:
        echo(_("Warning: {problem}.").format(problem=f"{problem[0].upper()}{problem[1:]}"), err=True)


COMMANDS = [init_cmd, session_group, log_cmd, verify_cmd, receipt_cmd, schema_cmd, note_cmd, rebuild_cmd]
