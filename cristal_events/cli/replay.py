"""``cristal replay``: the story of the log, event by event, with the state change each event made."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import click

from ..i18n import _
from ..jobs import replay as replay_job
from ..jobs.walk import resolve_range, walk
from ..service import Campaign
from .common import POSITION, echo, json_option, to_json, tty_progress


def _wait() -> bool:
    """Wait for a key between events; False when the reader asked to stop (q)."""
    if sys.stdin.isatty():
        click.echo(_("[Enter: next, q: quit]"), nl=False, err=True)
        key = click.getchar()
        click.echo("", err=True)
        return key not in ("q", "Q", "\x1b", "\x03")
    line = sys.stdin.readline()
    return line.strip().lower() != "q"


@click.command("replay")
@click.option("--session", type=POSITION, default=None, help="Only this session.")
@click.option("--from", "start", type=POSITION, default=None, metavar="POS", help="Start at this position.")
@click.option("--until", type=POSITION, default=None, metavar="POS", help="Stop after this position.")
@click.option("--character", default=None, metavar="ID", help="Only the events that concern this character.")
@click.option("--step", is_flag=True, help="Wait for a key between events (q stops).")
@json_option
@click.pass_context
def replay_cmd(ctx: click.Context, session: int | None, start: int | None, until: int | None,
               character: str | None, step: bool, as_json: bool) -> None:
    """Tell what happened, event by event, with the state change each event made.

    Reads the log and folds it: it never rolls a die and never writes. With --json, one record
    per line (position, session, in-game date, actor, stream, type, summary, payload, changes).

    Example: cristal replay --session 2 --character thor
    """

    camp = Campaign.open(ctx.obj["db"], readonly=True)
    ctx.call_on_close(camp.close)
    after, end = resolve_range(camp, session=session, start=start, until=until)
    progress = None if sys.stdout.isatty() else tty_progress("replay")
    steps = walk(camp, after=after, until=end, character=character, progress=progress)
    blocks: Iterator[list[str]]
    if as_json:
        blocks = ([to_json(replay_job.record(s))] for s in steps)
    else:
        blocks = replay_job.text_blocks(steps)
    out = click.echo if as_json else echo  # JSON is exact; a text line shows its controls visibly
    for i, block in enumerate(blocks):
        if step and i and not _wait():
            break
        for line in block:
            out(line)


COMMANDS = [replay_cmd]
