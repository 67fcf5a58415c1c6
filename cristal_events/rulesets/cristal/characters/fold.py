"""Character folds: each event applied to the state (pure; deltas, never recorded 'after' values)."""

from __future__ import annotations

from typing import Any

import msgspec

from cristal_events.events import SessionStarted
from cristal_events.maps import with_entry
from cristal_events.records import RecordedEvent

from ..state import CristalState
from .model import (
    AbilityPracticed,
    AlignmentChanged,
    Alteration,
    AlterationEnded,
    Character,
    CharacterCorrected,
    CharacterCreated,
    CharacterReady,
    CharacterRetired,
    ContentPack,
    ContentPackLoaded,
    DamageTaken,
    GoldChanged,
    Healed,
    ItemAdded,
    ItemDropped,
    ItemEquipped,
    ItemUnequipped,
    LevelBought,
    OwnedItem,
    PointsSet,
    Rested,
    SpellLearned,
    StateAltered,
    TechniqueBought,
    XpAwarded,
)


# ============================================================================ folds
def _put(state: CristalState, ch: Character) -> CristalState:
    return msgspec.structs.replace(state, characters=with_entry(state.characters, ch.id, ch))


def _update(state: CristalState, cid: str, **changes: Any) -> CristalState:
    ch = state.characters.get(cid)
    if ch is None:
        return state
    return _put(state, msgspec.structs.replace(ch, **changes))


def _sync_fights(state: CristalState, cid: str) -> CristalState:
    """A character's condition outside the fight's own events (a heal, a rest, damage) is its condition
    in every fight it is in: healed above 0 PV it wakes and acts again from the fight's present moment
    (L369, D8); hurt below 0 it falls. A fighter whose PV the GM gave (``--stat PV``) keeps its own."""
    ch = state.characters.get(cid)
    if ch is None or not state.combats:
        return state
    now = "dead" if ch.dead else "unconscious" if ch.unconscious else "conscious"
    combats = dict(state.combats)
    for name, cb in state.combats.items():
        f = cb.fighters.get(cid)
        if f is None or "PV" in f.stats or f.condition == now:
            continue
        changes: dict[str, Any] = {"condition": now, "bleed_seconds": 0}
        it = cb.it
        if now == "conscious":
            changes["aided"] = False
            it = {**cb.it, cid: max(cb.it[cid], cb.clock)}
        else:
            changes["incantation"] = None
        fighter = msgspec.structs.replace(f, **changes)
        combats[name] = msgspec.structs.replace(cb, it=it, fighters={**cb.fighters, cid: fighter})
    return msgspec.structs.replace(state, combats=combats)


def evolve_created(state: CristalState, ev: CharacterCreated, rec: RecordedEvent) -> CristalState:
    return _put(state, Character(
        id=ev.character, name=ev.name, race=ev.race, sex=ev.sex, player=ev.player, alignment=ev.alignment,
        luck=ev.luck, fixed=dict(ev.fixed), senses=dict(ev.senses), specials=list(ev.specials),
        techniques=dict(ev.techniques), gold=ev.gold, pv=ev.pv, pm=ev.pm, creating=True))


def _ch(state: CristalState, ev: Any) -> Character | None:
    """The character an event names (every character event carries ``character``)."""
    return state.characters.get(ev.character)


def evolve_award(state: CristalState, ev: XpAwarded, rec: RecordedEvent) -> CristalState:
    ch = _ch(state, ev)
    return _update(state, ch.id, xp=ch.xp + ev.amount) if ch else state


def evolve_level(state: CristalState, ev: LevelBought, rec: RecordedEvent) -> CristalState:
    ch = _ch(state, ev)
    if ch is None:
        return state
    return _update(state, ch.id, xp=ch.xp - ev.cost_charged, global_level=ch.global_level + 1,
                   classes={**ch.classes, ev.class_name: ch.classes.get(ev.class_name, 0) + 1},
                   fixed={**ch.fixed, ev.stat: ch.fixed.get(ev.stat, 0) + 1},
                   pv=ch.pv + ev.pv_gain, pm=ch.pm + ev.pm_gain)


def evolve_technique(state: CristalState, ev: TechniqueBought, rec: RecordedEvent) -> CristalState:
    ch = _ch(state, ev)
    if ch is None:
        return state
    return _update(state, ch.id, xp=ch.xp - ev.cost_charged, techniques={**ch.techniques, ev.technique: ev.level})


def evolve_spell(state: CristalState, ev: SpellLearned, rec: RecordedEvent) -> CristalState:
    ch = _ch(state, ev)
    if ch is None:
        return state
    return _update(state, ch.id, xp=ch.xp - ev.cost_charged, spells=[*ch.spells, ev.spell])


def evolve_item_added(state: CristalState, ev: ItemAdded, rec: RecordedEvent) -> CristalState:
    ch = _ch(state, ev)
    if ch is None:
        return state
    key = ev.item.name.casefold()
    if any(i.name.casefold() == key for i in ch.items):
        items = [msgspec.structs.replace(i, qty=i.qty + ev.qty) if i.name.casefold() == key else i for i in ch.items]
    else:
        items = [*ch.items, OwnedItem(name=ev.item.name, qty=ev.qty, template=ev.item)]
    return _update(state, ch.id, items=items)


def set_equipped(state: CristalState, ev: ItemEquipped | ItemUnequipped, flag: bool) -> CristalState:
    ch = _ch(state, ev)
    if ch is None:
        return state
    key = ev.item.casefold()
    allowed = ev.gm_allowed if isinstance(ev, ItemEquipped) else ""
    penalties = dict(ev.penalties) if isinstance(ev, ItemEquipped) else {}
    return _update(state, ch.id, items=[
        msgspec.structs.replace(i, equipped=flag, gm_allowed=allowed, penalties=penalties)
        if i.name.casefold() == key else i for i in ch.items])


def evolve_dropped(state: CristalState, ev: ItemDropped, rec: RecordedEvent) -> CristalState:
    ch = _ch(state, ev)
    if ch is None:
        return state
    key = ev.item.casefold()
    items = []
    for i in ch.items:
        if i.name.casefold() == key:
            if i.qty - ev.qty <= 0:
                continue
            i = msgspec.structs.replace(i, qty=i.qty - ev.qty)
        items.append(i)
    return _update(state, ch.id, items=items)


def evolve_gold(state: CristalState, ev: GoldChanged, rec: RecordedEvent) -> CristalState:
    ch = _ch(state, ev)
    return _update(state, ch.id, gold=ch.gold + ev.amount) if ch else state


def evolve_rested(state: CristalState, ev: Rested, rec: RecordedEvent) -> CristalState:
    ch = _ch(state, ev)
    if ch is None:
        return state
    pv = ch.pv + ev.pv_gained
    return _sync_fights(_update(state, ch.id, pv=pv, pm=ch.pm + ev.pm_gained, it=0,
                                pools_used={} if ev.pools_renewed else ch.pools_used,
                                unconscious=ch.unconscious and pv <= 0), ch.id)


def evolve_damaged(state: CristalState, ev: DamageTaken, rec: RecordedEvent) -> CristalState:
    ch = _ch(state, ev)
    if ch is None:
        return state
    pv = ch.pv - ev.amount
    return _sync_fights(_update(state, ch.id, pv=pv, unconscious=ch.unconscious or pv < 0,
                                dead=ch.dead or ev.dead), ch.id)


def evolve_healed(state: CristalState, ev: Healed, rec: RecordedEvent) -> CristalState:
    ch = _ch(state, ev)
    if ch is None:
        return state
    pv = ch.pv + ev.healed
    state = _sync_fights(_update(state, ch.id, pv=pv, unconscious=ch.unconscious and pv <= 0), ch.id)  # D8
    healer = state.characters.get(ev.healer) if ev.healer else None
    if healer is not None and ev.pool_used:
        used = {**healer.pools_used, "alignment": healer.pools_used.get("alignment", 0) + ev.pool_used}
        state = _update(state, healer.id, pools_used=used)
    return state


def evolve_alignment(state: CristalState, ev: AlignmentChanged, rec: RecordedEvent) -> CristalState:
    ch = _ch(state, ev)
    return _update(state, ch.id, alignment=ch.alignment + ev.amount) if ch else state


def evolve_altered(state: CristalState, ev: StateAltered, rec: RecordedEvent) -> CristalState:
    ch = _ch(state, ev)
    if ch is None:
        return state
    alt = Alteration(stat=ev.stat, delta=ev.delta, until=ev.until, reason=ev.reason, since=rec.position)
    return _update(state, ch.id, alterations=[*ch.alterations, alt])


def evolve_alteration_ended(state: CristalState, ev: AlterationEnded, rec: RecordedEvent) -> CristalState:
    ch = _ch(state, ev)
    if ch is None:
        return state
    return _update(state, ch.id, alterations=[a for a in ch.alterations if a.since != ev.since])


def evolve_points_set(state: CristalState, ev: PointsSet, rec: RecordedEvent) -> CristalState:
    """PV / PM moved; a cap that follows an alteration (the next position) is written on it, so that
    its end can give the points back (setting ``points_return_when_state_ends``)."""
    ch = _ch(state, ev)
    if ch is None:
        return state
    alterations = ch.alterations
    if ev.reason == "cap" and alterations and alterations[-1].since == rec.position - 1:
        last = alterations[-1]
        alterations = [*alterations[:-1], msgspec.structs.replace(
            last, pv_capped=last.pv_capped - ev.pv_delta, pm_capped=last.pm_capped - ev.pm_delta)]
    return _update(state, ch.id, pv=ch.pv + ev.pv_delta, pm=ch.pm + ev.pm_delta, alterations=alterations)


def evolve_ready(state: CristalState, ev: CharacterReady, rec: RecordedEvent) -> CristalState:
    ch = _ch(state, ev)
    if ch is None:
        return state
    return _update(state, ch.id, pv=ch.pv + ev.pv_delta, pm=ch.pm + ev.pm_delta, creating=False)


def evolve_session_started(state: CristalState, ev: SessionStarted, rec: RecordedEvent) -> CristalState:
    """The first session closes every creation phase still open (L1482: "Au tout début d'un scénario");
    the PV and PM are already at their maxima, kept there by ``character.points_set`` during creation."""
    if not any(c.creating for c in state.characters.values()):
        return state
    chars = {cid: msgspec.structs.replace(c, creating=False) if c.creating else c
             for cid, c in state.characters.items()}
    return msgspec.structs.replace(state, characters=chars)


CORRECTABLE_FIELD = {"xp": "xp", "gold": "gold", "pv": "pv", "alignment": "alignment"}


def evolve_corrected(state: CristalState, ev: CharacterCorrected, rec: RecordedEvent) -> CristalState:
    ch = _ch(state, ev)
    if ch is None or ev.field not in CORRECTABLE_FIELD:
        return state
    attr = CORRECTABLE_FIELD[ev.field]
    changes: dict[str, Any] = {attr: getattr(ch, attr) + ev.delta}
    if ev.cost_after is not None:
        changes["charges"] = {**ch.charges, ev.amends: ev.cost_after}
    state = _update(state, ch.id, **changes)
    if ev.fixed:
        state = msgspec.structs.replace(state, corrections={**state.corrections, ev.amends: dict(ev.fixed)})
    return state


def evolve_ability(state: CristalState, ev: AbilityPracticed, rec: RecordedEvent) -> CristalState:
    ch = _ch(state, ev)
    if ch is None:
        return state
    return _update(state, ch.id, pools_used={**ch.pools_used, ev.pool: ch.pools_used.get(ev.pool, 0) + ev.cost})


def evolve_retired(state: CristalState, ev: CharacterRetired, rec: RecordedEvent) -> CristalState:
    """The character leaves the state (its stream and its history stay in the log)."""
    return msgspec.structs.replace(state, characters={k: v for k, v in state.characters.items()
                                                      if k != ev.character})


def evolve_pack(state: CristalState, ev: ContentPackLoaded, rec: RecordedEvent) -> CristalState:
    return msgspec.structs.replace(state, packs=[*state.packs, ContentPack(name=ev.name, data=ev.data)])


