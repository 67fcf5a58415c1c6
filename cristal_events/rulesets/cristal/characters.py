"""Characters of Les Lois du Cristal as event streams (``character:<id>``).

Part of the cristal ruleset (see ``ruleset.py`` for the part contract): the character model held in
the state, its events, the decisions of its commands and the pure folds of its events.
"""

from __future__ import annotations

from typing import Any

import msgspec


class Character(msgspec.Struct, kw_only=True):
    """A character as the rules need it (seed 000, Feuille de Personnage L35-L397)."""

    id: str
    name: str
    race: str


EVENTS: tuple[type, ...] = ()
DECIDERS: dict[type, Any] = {}
EVOLVERS: dict[type, Any] = {}
SUMMARIES: dict[type, Any] = {}
COMPENSATORS: dict[type, Any] = {}
