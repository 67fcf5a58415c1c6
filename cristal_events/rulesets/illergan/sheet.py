"""The Illergan character sheet as plain data (creation steps 1-13, I-L321-371), for the CLI and the
sheet projection. Values the content pack lacks (the power die of a rank, G11) show as None rather
than stopping the sheet.
"""

from __future__ import annotations

from typing import Any

import msgspec

from cristal_events.errors import RuleError, UnknownEntity

from . import alcohol, gear
from .content import Content
from .money import from_copper
from .state import Hero, stat


def _power_die(content: Content, rank: int) -> str | None:
    try:
        return f"d{content.power_die(rank)}"
    except RuleError:
        return None


def _powers(hero: Hero, content: Content) -> list[str]:
    """The PD mastered: every PD of the cult at or below the faith level (I-L335)."""
    if hero.cult is None or hero.faith_level is None:
        return []
    return [p.name for p in content.pack.divine_powers if p.cult == hero.cult and p.level <= hero.faith_level]


def sheet(hero: Hero, content: Content, settings: Any) -> dict[str, Any]:
    """Everything the Feuille de Personnage shows, derived from the folded hero."""
    th = None
    if all(k in hero.characteristics for k in ("Vit", "Vol", "Fo", "E")):
        from .tavern import thresholds_of

        t = thresholds_of(hero, settings)
        th = {k: float(getattr(t, k)) if getattr(t, k) != int(getattr(t, k)) else int(getattr(t, k))
              for k in alcohol.BANDS}
    return {
        "id": hero.id, "name": hero.name, "kind": hero.kind, "player": hero.player, "race": hero.race,
        "class": hero.class_name, "heritage": hero.heritage, "race_skill": hero.race_skill,
        "class_bonuses": list(hero.class_bonuses), "incantation_types": list(hero.incantation_types),
        "characteristics": dict(hero.characteristics),
        "current": {k: stat(hero, k) for k in hero.characteristics},
        "skills": {k: msgspec.to_builtins(v) for k, v in sorted(hero.skills.items())},
        "destiny_points": hero.destiny_points, "gift": hero.gift, "gift_effect": hero.gift_effect,
        "cult": hero.cult, "god": hero.god, "faith_level": hero.faith_level, "pf_per_day": hero.pf_per_day,
        "pf": hero.pf, "pfb": hero.pfb, "divine_powers": _powers(hero, content),
        "magics": {k: msgspec.to_builtins(v) for k, v in sorted(hero.magics.items())}, "spells": list(hero.spells),
        "pv": hero.pv, "pv_max": hero.pv_max, "pm": hero.pm, "pm_max": hero.pm_max, "rn": hero.rn,
        "fp": hero.fp, "power_rank": hero.power_rank, "power_die": _power_die(content, hero.power_rank),
        "xp": hero.xp, "xp_total": hero.xp_total, "heritage_xp": hero.heritage_xp,
        "starls": str(from_copper(hero.copper, content)) if content.pack.coin_ratio else f"{hero.copper}'C",
        "copper": hero.copper, "weapon": hero.weapon, "armour": hero.armour, "shield": hero.shield,
        "pieces": dict(hero.pieces), "added_cult": hero.added_cult, "learned_pds": list(hero.learned_pds),
        "items": dict(hero.items), "max_charges": hero.max_charges, "encumbrance": gear.summary(hero, content),
        "languages": list(hero.languages), "traits": list(hero.traits), "preferred_hand": hero.preferred_hand,
        "alcohol": {"alc": hero.alc.alc, "alc_min": hero.alc.alc_min, "band": hero.alc.band, "thresholds": th},
        "limbs_lost": list(hero.limbs_lost), "conditions": list(hero.conditions), "dead": hero.dead,
        "shield_ps": _shield_ps(hero, content), "dropped_weapon": hero.dropped_weapon,
        "afflictions": [msgspec.to_builtins(a) for a in hero.afflictions],
    }


def _shield_ps(hero: Any, content: Any) -> int | None:
    """The shield's PS left, kept from the pack's value (I-L407, I-L439)."""
    if not hero.shield:
        return None
    if hero.shield_ps is not None:
        return hero.shield_ps
    try:
        return content.entry("shields", hero.shield).ps
    except UnknownEntity:  # a shield the pack does not name: its PS are unknown
        return None
