"""The Illergan commands of the ``cristal`` CLI (found through ``commands()``)."""

from __future__ import annotations

import click


def commands() -> list[click.Command]:
    from . import cli_heroes, cli_play

    return [*cli_heroes.COMMANDS, *cli_play.COMMANDS]
