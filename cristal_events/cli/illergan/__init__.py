"""The Illergan commands of the ``cristal`` CLI.

``PARTS`` names the module (in this package) of each command; each module lists its commands in
``COMMANDS``. The CLI imports only the module of the command typed (a test checks ``PARTS`` against
the modules' ``COMMANDS`` lists).
"""

from __future__ import annotations

PARTS = {name: "heroes" for name in ("content", "character", "xp", "money", "equip",
                                          "carry")}
PARTS |= {name: "play" for name in ("check", "throw", "fall", "condition", "combat", "cast", "spell", "faith", "drink",
                                        "wait", "evening", "strike")}

PARTS |= {name: "care" for name in ("use", "recover")}
