"""Combats of Les Lois du Cristal as event streams (``combat:<name>``) on the Indice de Temps timeline.

Part of the cristal ruleset (see ``ruleset.py`` for the part contract).
"""

from __future__ import annotations

from typing import Any

import msgspec


class Combat(msgspec.Struct, kw_only=True):
    """A fight: its participants and their Indice de Temps (seed 000, L1195-L1313)."""

    name: str
    it: dict[str, int] = {}
    active: bool = True


EVENTS: tuple[type, ...] = ()
DECIDERS: dict[type, Any] = {}
EVOLVERS: dict[type, Any] = {}
SUMMARIES: dict[type, Any] = {}
COMPENSATORS: dict[type, Any] = {}
