"""The Lois du Cristal commands of the ``cristal`` CLI (found through ``commands()``).

``PARTS`` names the module (in this package) of each command: the CLI imports only the module of
the command typed (a test checks it against the modules' ``COMMANDS`` lists).
"""

from __future__ import annotations

import importlib

import click

PARTS = {name: "cli_characters" for name in ("character", "xp", "item", "gold", "rest", "damage", "heal",
                                              "alignment", "state", "sheet", "characters", "content")}
PARTS["combat"] = "cli_combat"


def commands() -> list[click.Command]:
    out: list[click.Command] = []
    for part in dict.fromkeys(PARTS.values()):
        out.extend(importlib.import_module(f"{__package__}.{part}").COMMANDS)
    return out
