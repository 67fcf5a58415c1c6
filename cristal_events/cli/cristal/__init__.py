"""The Lois du Cristal commands of the ``cristal`` CLI.

``PARTS`` names the module (in this package) of each command; each module lists its commands in
``COMMANDS``. The CLI imports only the module of the command typed (a test checks ``PARTS`` against
the modules' ``COMMANDS`` lists).
"""

from __future__ import annotations

PARTS = {name: "characters" for name in ("character", "item", "gold", "rest", "damage", "heal",
                                              "alignment", "state", "content", "check", "ability", "bleed")}
PARTS["xp"] = "xp"
PARTS["combat"] = "combat"
PARTS["magic"] = "magic"

