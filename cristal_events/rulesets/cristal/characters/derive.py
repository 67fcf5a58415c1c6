"""Pure reads over a character: the campaign content, fixed and stable states, the sheet."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import msgspec

from cristal_events.errors import RuleError, UnknownEntity
from cristal_events.rounding import as_mode

from .. import alignment as align_rules
from .. import crystals, equipment, progression, senses, stable
from .. import fixed as fixed_tables
from ..content import (
    FIXED_STATES,
    SENSES,
    Content,
    ItemTemplate,
    content_from_sections,
    load_core,
    merge,
    race_for_sex,
)
from ..crystals import Crystal
from ..state import CristalState
from ..texts import _
from .model import Character, ContentPack, OwnedItem


# ============================================================================ pure reads
@functools.lru_cache(maxsize=32)
def _merged(key: bytes) -> Content:
    packs = msgspec.json.decode(key, type=list[ContentPack])
    content = load_core()
    for pack in packs:
        content = merge(content, content_from_sections(pack.name, pack.data))
    return content


def content_of(state: CristalState) -> Content:
    """The campaign's content: the core pack merged with every loaded pack, in log order."""
    packs = getattr(state, "packs", [])
    if not packs:
        return load_core()
    return _merged(msgspec.json.encode(packs))


def stream_of(character_id: str) -> str:
    return f"character:{character_id}"


def find(state: CristalState, character_id: str) -> Character:
    """The character ``character_id`` of the state, or UnknownEntity."""
    ch = state.characters.get(character_id)
    if ch is None:
        from ..content import did_you_mean

        known = ", ".join(sorted(state.characters)) or _("none")
        hint = did_you_mean(character_id, state.characters)
        raise UnknownEntity(_("Unknown character '{character_id}';{hint} known characters: {known}.").format(
            character_id=character_id, hint=hint, known=known))
    return ch


def current_fixed(ch: Character) -> dict[str, int]:
    """Permanent fixed states plus the temporary alterations (L1468), before equipment."""
    out = {s: ch.fixed.get(s, 0) for s in FIXED_STATES}
    for alt in ch.alterations:
        out[alt.stat] = out.get(alt.stat, 0) + alt.delta
    return out


def equipped(ch: Character) -> list[ItemTemplate]:
    """The equipped items' sheet lines; the penalties a GM added to an item it let the character use
    despite its handicap (L871, D9) follow as one more line, ``<item> (pénalités du MJ)``, so they count
    wherever a Bonus/Handicap counts and leave the item itself unchanged."""
    out = []
    for i in ch.items:
        if i.equipped:
            out.append(i.template)
            if i.penalties:
                out.append(ItemTemplate(name=f"{i.name} (pénalités du MJ)", category="Autres",
                                        modifiers=dict(i.penalties)))
    return out


def effective_senses(ch: Character) -> dict[str, int]:
    """The six senses with the equipped items' Bonus/Handicap on senses (L191-L204, L865)."""
    return senses.effective(ch.senses, equipped(ch))


def find_item(ch: Character, name: str) -> OwnedItem:
    from ..content import did_you_mean, find_named

    item = find_named(ch.items, name, lambda i: i.name)
    if item is not None:
        return item
    known = ", ".join(i.name for i in ch.items) or _("nothing")
    hint = did_you_mean(name, [i.name for i in ch.items])
    raise UnknownEntity(_("{character} carries no item '{name}';{hint} carried: {known}.").format(
        character=ch.name, name=name, hint=hint, known=known))


def stable_of(ch: Character, content: Content, rounding: str, weapon: str | None = None) -> stable.StableStates:
    """The seven stable states (L244-L354) with the equipped ``weapon`` (None: the main weapon or bare hands)."""
    race = race_for_sex(content.race(ch.race), ch.sex)
    eq = equipped(ch)
    w = find_item(ch, weapon).template if weapon else main_weapon(ch)
    if w is not None and w not in eq:
        raise RuleError(_("{w} must be equipped to attack with it (L877).").format(w=w.name))
    return stable.stable_states(race, ch.classes, current_fixed(ch), eq, weapon=w, mode=as_mode(rounding),
                                content=content)


def _is_weapon(t: ItemTemplate) -> bool:
    return t.category in ("Principale", "Projectiles") and (t.dmg.strip() != "0" or t.kind == "propulsor")


def main_weapon(ch: Character) -> ItemTemplate | None:
    """The first equipped weapon that is not a propulsor (the sheet's first weapon), or None: bare hands."""
    return next((t for t in equipped(ch) if _is_weapon(t) and t.kind != "propulsor"), None)


def regeneration(ch: Character, content: Content, rounding: str, minimum_one: bool = False) -> int:
    """PV regenerated per day (L491): PVmax x the race's %, optionally at least 1 (D28)."""
    race = race_for_sex(content.race(ch.race), ch.sex)
    value = stable.regeneration_per_day(race, stable_of(ch, content, rounding).PVmax, as_mode(rounding))
    return max(1, value) if minimum_one and value < 1 else value


def death_threshold(ch: Character, content: Content) -> int:
    race = race_for_sex(content.race(ch.race), ch.sex)
    return stable.death_threshold(race, current_fixed(ch)["CON"])


def _num(x: Any) -> float | int:
    f = float(x)
    return int(f) if f.is_integer() else round(f, 3)


def crystal_lines(ch: Character, held: Mapping[str, Crystal]) -> list[dict[str, Any]]:
    """The sheet's Cristal Magique section (L917-L923): PM max, the stored spell and its PM, with the
    band's price and size (L1083-L1089); ``held`` is the campaign's crystals by name (a fight's stores)."""
    by_name = {k.casefold(): v for k, v in held.items()}
    out = []
    for i in ch.items:
        t = i.template
        if t.crystal_pm is None and t.category != "Cristal Magique":
            continue
        c = by_name.get(i.name.casefold())
        pm_max = t.crystal_pm if t.crystal_pm is not None else (c.capacity if c else None)
        band = crystals.crystal_band(pm_max) if pm_max is not None else None
        out.append({"name": i.name, "pm_max": pm_max,
                    "spell": c.stored.name if c and c.stored else "", "pm": c.stored.pm if c and c.stored else 0,
                    "locked_by": c.locked_by if c else None, "destroyed": bool(c and c.destroyed),
                    "price_po": t.price_po if t.price_po is not None else (band.price_po if band else None),
                    "size_cm3": band.size_cm3 if band else None})
    return out


def sheet(ch: Character, content: Content, rounding: str, *, regeneration_minimum_one: bool = False,
          crystals_held: Mapping[str, Crystal] | None = None, chance_enabled: bool = True) -> dict[str, Any]:
    """The Feuille de Personnage as plain JSON data (issue 4 keys, plus weapons, regeneration, pools)."""
    st = stable_of(ch, content, rounding)
    race = race_for_sex(content.race(ch.race), ch.sex)
    eff = equipment.effective_fixed(current_fixed(ch), equipped(ch))
    bonuses = progression.class_bonuses(content, ch.classes)
    vol_max = bonuses.points.get("Vol", 0)
    # the optional Chance rule (L56) turned off: no reroll on the sheet
    player_rr, gm_rr = align_rules.chance_rerolls(ch.luck) if chance_enabled else (0, 0)
    weapons = []
    for t in equipped(ch):
        if _is_weapon(t) and t.kind != "propulsor":
            w = stable.stable_states(race, ch.classes, current_fixed(ch), equipped(ch), weapon=t,
                                     mode=as_mode(rounding), content=content)
            weapons.append({"name": t.name, "ATT": w.ATT, "DMG": w.DMG, "IT": t.it if t.it is not None else 6})
    weight = equipment.carried_weight([(i.template, i.qty) for i in ch.items], gold_coins=ch.gold)
    load = equipment.load(eff["FRC"], weight)
    items = [{"name": i.name, "qty": i.qty, "equipped": i.equipped, "category": i.template.category,
              **({"gm_allowed": i.gm_allowed, "penalties": dict(i.penalties)} if i.gm_allowed else {}),
              "section": "main" if i.template.category == "Principale" else "secondary",
              "weight_kg": _num(i.template.weight_kg * i.qty)} for i in ch.items]
    return {
        "id": ch.id, "name": ch.name, "race": race.name, "sex": ch.sex, "player": ch.player,
        "global_level": ch.global_level, "alignment": ch.alignment, "luck": ch.luck,
        "classes": dict(ch.classes),
        "fixed": current_fixed(ch),
        "fixed_permanent": {s: ch.fixed.get(s, 0) for s in FIXED_STATES},
        "fixed_effective": eff,
        "alterations": [msgspec.to_builtins(a) for a in ch.alterations],
        "senses": effective_senses(ch), "senses_base": {k: ch.senses.get(k, 0) for k in SENSES},
        "sense_ranges": senses.ranges(effective_senses(ch)), "specials": list(ch.specials),
        "fixed_tables": fixed_tables.table_rows(eff),
        "creating": ch.creating,
        "stable": {"DP": st.DP, "DM": st.DM, "ATT": st.ATT, "DMG": st.DMG, "CNC": st.CNC,
                   "PVmax": st.PVmax, "PMmax": st.PMmax, "weapon": st.weapon},
        "weapons": weapons,
        "variable": {"PV": ch.pv, "PM": ch.pm, "XP": ch.xp, "IT": ch.it},
        "status": "dead" if ch.dead else "unconscious" if ch.unconscious else "conscious",
        "death_threshold": death_threshold(ch, content),
        "regeneration": regeneration(ch, content, rounding, regeneration_minimum_one),
        "vol": {"max": vol_max, "left": max(0, vol_max - ch.pools_used.get("Vol", 0))},
        "chance": {"rerolls": player_rr, "gm_rerolls": gm_rr,
                   "left": max(0, max(player_rr, gm_rr) - ch.pools_used.get("chance", 0))},
        "alignment_pool": {"max": align_rules.daily_pool(ch.alignment),
                           "left": max(0, align_rules.daily_pool(ch.alignment) - ch.pools_used.get("alignment", 0))},
        "techniques": dict(ch.techniques),
        "spells": list(ch.spells),
        "items": items,
        "crystals": crystal_lines(ch, crystals_held or {}),
        # magic items (MAG > 0, L1137): own DM = MAG (L851), automatic or manual (L1143-L1145)
        "magic_items": [{"name": i.name, "mag": i.template.mag, "own_dm": equipment.item_self_dm(i.template),
                         "activation": i.template.activation, "understood": i.name.casefold() in ch.understood}
                        for i in ch.items if i.template.mag > 0],
        "detected": dict(ch.detected),
        "encumbrance": {"weight_kg": _num(load.weight_kg), "encumbrance_kg": _num(load.encumbrance_kg),
                        "max_kg": _num(load.max_kg), "status": load.status},
        "gold": ch.gold,
    }


