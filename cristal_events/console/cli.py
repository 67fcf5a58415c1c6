"""``cristal play``: the table console over one campaign (see :mod:`cristal_events.console.session`)."""

from __future__ import annotations

import sys

import click

from .session import Console, history_path, stdin_lines


@click.command("play")
@click.option("--json", "as_json", is_flag=True,
              help="Each command prints its --json (JSON Lines for a script reading piped input).")
@click.pass_context
def play_cmd(ctx: click.Context, as_json: bool) -> None:
    """The table console: every command without 'cristal' and '--db', on the campaign kept open.

    'fight NAME' makes NAME the current fight (then 'attack thor york 14,5'); short aliases and the
    console's words are listed by 'help'; Tab completes ids, fights, weapons, spells and options; the
    history is kept beside the campaign (CAMPAIGN.history); the bottom bar shows the open session and
    the current fight. Piped input runs line by line, without a prompt (exit 1 if a line was refused).

    Example: cristal --db taverne.db play   (scripted: cristal --db taverne.db play --json < soir.txt)
    """
    console = Console(ctx.obj["db"], actor=ctx.obj["actor"], as_json=as_json)
    try:
        if sys.stdin.isatty() and sys.stdout.isatty():
            status = console.interact()
        else:
            status = console.run_lines(stdin_lines())
    finally:
        console.close()
    ctx.exit(status)


COMMANDS = [play_cmd]
__all__ = ["COMMANDS", "history_path"]
