"""The Illergan commands of the ``cristal`` CLI (found through ``commands()``).

``PARTS`` names the module (in this package) of each command: the CLI imports only the module of
the command typed (a test checks it against the modules' ``COMMANDS`` lists).
"""

from __future__ import annotations

import importlib

import click

PARTS = {name: "cli_heroes" for name in ("content", "character", "sheet", "characters", "xp", "money", "equip",
                                          "carry")}
PARTS |= {name: "cli_play" for name in ("check", "throw", "fall", "condition", "combat", "cast", "faith", "drink",
                                        "wait", "evening")}


def commands() -> list[click.Command]:
    out: list[click.Command] = []
    for part in dict.fromkeys(PARTS.values()):
        out.extend(importlib.import_module(f"{__package__}.{part}").COMMANDS)
    return out
