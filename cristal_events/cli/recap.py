"""``cristal recap``: what happened in a session, from the log, in the players' or the game master's view."""

from __future__ import annotations

import click

from ..errors import CristalError
from ..i18n import _
from ..jobs import recap as rc
from ..jobs.vault import write_vault
from .common import POSITION, echo, emit_json, json_option, open_campaign


@click.command("recap")
@click.option("--session", type=POSITION, required=True, help="The session to tell.")
@click.option("--view", type=click.Choice(rc.VIEWS), required=True,
              help="players: without private notes, foes' numbers or sealed rolls; gm: everything.")
@click.option("--format", "fmt", type=click.Choice(("text", "md")), default="text", show_default=True,
              help="text: printed; md: an Obsidian vault written into --out.")
@click.option("--out", "out", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="The vault's folder (with --format md): one note per session, character and fight.")
@json_option
@click.pass_context
def recap_cmd(ctx: click.Context, session: int, view: str, fmt: str, out: str | None, as_json: bool) -> None:
    """Tell one session from the log: who was there, its fights, every event in the rules' words, its
    in-game and real dates and its receipt. The players' view leaves out the game master's private
    notes (note --private) and hides every number of a command that involves a foe (a creature, a
    character without a player, a fighter known by its numbers only); the GM's view has everything.

    --format md --out DIR writes an Obsidian vault (front matter, [[wikilinks]]); a note of the same
    name that the recap did not write (for this campaign and view) is left alone and named, and a
    second run rewrites only its own notes (docs/exports.md, "Recaps").

    Example: cristal recap --session 2 --view players --format md --out vault-joueurs
    """
    if fmt == "md" and out is None:
        raise CristalError(_("--format md writes a vault of notes: give its folder with --out DIR."))
    if fmt == "text" and out is not None:
        raise CristalError(_("--out is the folder of a Markdown vault: add --format md, or leave --out out to "
                             "print the text recap."))
    camp = open_campaign(ctx, readonly=True)
    recap = rc.build(camp, session=session, view=view)  # type: ignore[arg-type]  # click.Choice of VIEWS
    if fmt == "text":
        if as_json:
            emit_json(rc.recap_json(recap))
            return
        for line in rc.text_lines(recap):
            echo(line)
        return
    assert out is not None
    result = write_vault(recap, out)
    if as_json:
        emit_json(result.__dict__)
        return
    echo(_("Vault {folder}: {written} note(s) written, {unchanged} unchanged.").format(
        folder=out, written=len(result.written), unchanged=len(result.unchanged)))
    for name in result.left_alone:
        echo(_("Left alone: {name} (a note the recap did not write).").format(name=name))


COMMANDS = [recap_cmd]
