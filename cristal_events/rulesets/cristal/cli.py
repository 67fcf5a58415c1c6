"""The Lois du Cristal commands of the ``cristal`` CLI (found through ``commands()``)."""

from __future__ import annotations

import importlib

import click

_PARTS = ("cli_characters", "cli_combat")


def commands() -> list[click.Command]:
    out: list[click.Command] = []
    for name in _PARTS:
        try:
            mod = importlib.import_module(f"{__package__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__package__}.{name}":
                raise
            continue
        out.extend(mod.COMMANDS)
    return out
