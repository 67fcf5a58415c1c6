"""Combats of Les Lois du Cristal as event streams (``combat:<name>``) on the Indice de Temps timeline.

Part of the cristal ruleset (see ``ruleset.py`` for the part contract). There are no rounds: the
smallest IT acts, and the action's duration is added to it (seed 000, L1195-L1367). The pure rules
live in ``combat.py`` (timeline, initiative, attacks, damage, vitals), ``magic.py`` (spells, crystals,
potions) and ``alignment.py``; this module turns commands into events and folds them.

Who fights: a combatant is a character of the campaign (its numbers come from
``characters.sheet`` when that exists, its PV/PM from the character) or an *extra* the game master
describes with numbers (``stats``: ATT, DP, DM, CNC, DMG, PV, PM, PVmax, REF, CON, race ...), as the
book lets the GM give PV and a DP to anything that is attacked (L1325). GM numbers override the sheet.

Dice order (``faces`` / ``--dice``) is documented on each command struct.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from ...dice import Dice, parse
from ...errors import DiceError, RuleError, UnknownEntity
from ...events import Event
from ...rolls import Roll
from ...ruleset import Context, Emit
from . import alignment as al
from . import characters
from . import combat as c
from . import magic as m
from .content import Content, ItemTemplate, SpellDef, race_for_sex
from .stable import dmg as stable_dmg
from .stable import stable_states

Condition = Literal["conscious", "unconscious", "dead"]
STAT_KEYS = ("ATT", "DP", "DM", "CNC", "DMG", "PV", "PM", "PVmax", "PMmax", "REF", "CON", "FRC", "PVrace", "race",
             "ALIGN", "CHANCE", "VOLEUR", "VOL", "IT")
_TEXT_STATS = ("DMG", "race")


def stream(name: str) -> str:
    return f"combat:{name}"


def content(state: Any) -> Content:
    """The campaign's content: the core pack merged with the packs it loaded (``characters.content_of``)."""
    return characters.content_of(state)


# =========================================================================== state

class Incantation(msgspec.Struct, frozen=True, kw_only=True):
    """A spell whose incantation is paid; effects and combustion come at the caster's next turn (D21)."""

    spell: str
    spends: dict[str, int]
    targets: list[str]
    lowered_dm: dict[str, int] = {}
    combustion: int
    margin: int
    until: int
    cnc: int = 0
    penalty: int = 0
    spell_cnc: int = 0


class LastAttack(msgspec.Struct, frozen=True, kw_only=True):
    """What Chance needs to redo a missed attack roll (L56)."""

    target: str
    att: int
    dp: int
    halved: bool
    dmg: str
    backstab: bool
    hit: bool


class Fighter(msgspec.Struct, kw_only=True):
    """One combatant's combat-only data (its IT lives in ``Combat.it``)."""

    id: str
    stats: dict[str, int | str] = {}
    pv: int | None = None  # an extra's PV (a character keeps its own)
    pm: int | None = None
    condition: Condition = "conscious"
    bleed_seconds: int = 0
    aided: bool = False
    incantation: Incantation | None = None
    initiative: bool = False
    vol_spent: int = 0
    align_spent: int = 0
    rerolls: int = 0
    last_attack: LastAttack | None = None


class Combat(msgspec.Struct, kw_only=True):
    """A fight: its participants and their Indice de Temps (seed 000, L1195-L1313)."""

    name: str
    it: dict[str, int] = {}
    active: bool = True
    fighters: dict[str, Fighter] = {}
    actions: int = 0
    clock: int = 0  # the highest "now" reached (smallest IT of those able to act): bleeding runs on it
    tie_it: int | None = None
    tie_rolls: dict[str, int] = {}


# =========================================================================== events

class FighterEntry(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    it: int
    stats: dict[str, int | str] = {}


class InitiativeResult(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    base_it: int
    ref: int
    die: int
    it: int
    roll: Roll


class CombatStarted(Event, tag="combat.started"):
    """The fight begins; base ITs set by the game master (initiative method 1, L1317)."""

    name: str
    fighters: list[FighterEntry]


class CombatJoined(Event, tag="combat.joined"):
    """A newcomer: the average IT of those present unless the GM set one (L1220, D24)."""

    name: str
    fighter: FighterEntry
    averaged: bool = False


class InitiativeRolled(Event, tag="combat.initiative_rolled"):
    """``IT = base - ([1d6] + REF x 2)`` for each roller (L1319)."""

    name: str
    results: list[InitiativeResult]


class TieBroken(Event, tag="combat.tie_broken"):
    """Equal IT and REF: each rolled 1d6, highest acts first (L1202)."""

    name: str
    it: int
    rolls: dict[str, Roll]
    winner: str


class ActionTaken(Event, tag="combat.action_taken"):
    """Any action; its duration is added to the actor's IT (L1206-L1259)."""

    name: str
    actor: str
    what: str
    seconds: int
    action: str = ""
    rolls: list[Roll] = []
    aided: str = ""


class TurnPassed(Event, tag="combat.turn_passed"):
    """+1 IT at a time until the actor no longer holds the turn (L1292, D25)."""

    name: str
    actor: str
    seconds: int


class Swing(msgspec.Struct, frozen=True, kw_only=True):
    die: int
    total: int
    hit: bool
    roll: Roll | None = None
    damage: int = 0
    damage_roll: Roll | None = None


class AttackResolved(Event, tag="combat.attack_resolved"):
    """``ATT + 1d20 > DP`` (L1334), damage on a hit (L1354); IT += the weapon's IT (L1261)."""

    name: str
    attacker: str
    target: str
    att: int
    dp: int
    swings: list[Swing]
    seconds: int
    weapon: str = ""
    projectile: str = ""
    distance: int | None = None
    range_penalty: int = 0
    alignment_penalty: int = 0
    chain: bool = False
    back: bool = False
    vol_spent: int = 0
    dmg: str = ""


class SpellCast(Event, tag="combat.spell_cast"):
    """PM paid and the concentration rolled (L1040-L1046); the incantation is added at once (L1267)."""

    name: str
    caster: str
    spell: str
    spends: dict[str, int]
    targets: list[str]
    pm_cost: int
    pm_before: int
    pm_after: int
    overdraw_pv: int
    cnc: int
    penalty: int
    die: int
    total: int
    spell_cnc: int
    success: bool
    margin: int
    time: str
    incantation: int
    combustion: int
    roll: Roll | None = None
    penalties: list[str] = []
    lowered_dm: dict[str, int] = {}


class EffectResult(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    unit: str
    pm_after: int
    amount: str
    value: int | None = None
    roll: Roll | None = None


class TargetResult(msgspec.Struct, frozen=True, kw_only=True):
    target: str
    dm: int
    effects: list[EffectResult]
    damage: int = 0


class SpellReleased(Event, tag="combat.spell_released"):
    """The effects go off per target after its DM (L1024-L1036), then the combustion is added (L1271)."""

    name: str
    caster: str
    spell: str
    results: list[TargetResult]
    combustion: int
    source: str = "spell"  # spell | crystal | potion


class Deconcentrated(Event, tag="combat.deconcentrated"):
    """Hit during the incantation for more than the margin: the spell is lost (L969-L972, D5)."""

    name: str
    caster: str
    spell: str
    damage: int
    margin: int
    roll: Roll | None = None


class PvChanged(Event, tag="combat.pv_changed"):
    """A character's PV change in the fight (damage, overdraw, alignment, explosion)."""

    name: str
    character: str
    delta: int
    pv_after: int
    cause: str


class PmSpent(Event, tag="combat.pm_spent"):
    """PM paid for a spell (floored at 0; the rest is paid in PV, L379)."""

    name: str
    character: str
    pm: int
    pm_after: int


class ConditionChanged(Event, tag="combat.condition_changed"):
    """Unconscious below 0 PV, awake above 0, dead below -(race PV + 2 CON) (L369-L373, D8)."""

    name: str
    character: str
    condition: Condition
    pv: int


class Bled(Event, tag="combat.bled"):
    """An unconscious character loses 1 PV per 60 s of the fight's time, unaided (L371)."""

    name: str
    character: str
    seconds: int
    pv_lost: int
    pv_after: int
    carry: int


class CrystalStored(Event, tag="combat.crystal_stored"):
    """A spell cast with Fermeture Cristalline (L1077, L1091-L1093, L1115): stored, failed or exploded."""

    name: str
    caster: str
    crystal: str
    capacity: int
    spell: str
    spends: list[m.EffectSpend]
    pm: int
    fermeture_pm: int
    outcome: Literal["stored", "failed", "exploded"]
    spell_roll: Roll | None = None
    fermeture_roll: Roll | None = None
    spell_success: bool = False
    fermeture_success: bool = False
    explosion: str = ""
    explosion_roll: Roll | None = None
    seconds: int = 0
    pm_cost: int = 0
    pm_after: int = 0
    overdraw_pv: int = 0


class CrystalReleased(Event, tag="combat.crystal_released"):
    """Libération Cristalline (L1099-L1105): its own 2 PM and CNC 5 roll; the stored spell needs neither."""

    name: str
    caster: str
    crystal: str
    success: bool
    roll: Roll | None
    pm_cost: int
    pm_after: int
    seconds: int
    spell: str = ""
    overdraw_pv: int = 0


class PotionUsed(Event, tag="combat.potion_used"):
    """A potion drunk (8 s) or triggered on a target (L1169-L1177)."""

    name: str
    actor: str
    spell: str
    pm: int
    trigger: str
    target: str
    seconds: int


class AbilityUsed(Event, tag="combat.ability_used"):
    """A Voleur ability paid from the day's Vol* points (L728-L741)."""

    name: str
    actor: str
    ability: str
    cost: int
    seconds: int
    target: str = ""


class AlignmentUsed(Event, tag="combat.alignment_used"):
    """The alignment pool by touch: 1 PV per second, at most 20 per action (L1417-L1421)."""

    name: str
    actor: str
    target: str
    kind: Literal["heal", "harm"]
    points: int
    seconds: int
    remaining: int


class Rerolled(Event, tag="combat.rerolled"):
    """Chance: the last attack roll of a character redone; both rolls stay in the log (L56-L58)."""

    name: str
    character: str
    target: str
    swing: Swing
    left: int


class CombatEnded(Event, tag="combat.ended"):
    """Every IT goes back to 0 (L1222)."""

    name: str


# =========================================================================== commands
# Every command names the combat (``combat``) and is decided on the combat's current state.

class StartCombat(msgspec.Struct, frozen=True, kw_only=True):
    """Start ``combat`` with ``fighters``; ``its`` are base ITs (default 0); ``stats`` GM numbers per id."""

    combat: str
    fighters: list[str]
    its: dict[str, int] = {}
    stats: dict[str, dict[str, int | str]] = {}


class JoinCombat(msgspec.Struct, frozen=True, kw_only=True):
    combat: str
    fighter: str
    it: int | None = None
    stats: dict[str, int | str] = {}


class RollInitiative(msgspec.Struct, frozen=True, kw_only=True):
    """Dice: one d6 per fighter, in the order given (default: the order they joined)."""

    combat: str
    fighters: list[str] = []


class NextTurn(msgspec.Struct, frozen=True, kw_only=True):
    """Dice (only on a tie of IT and REF): one d6 per tied fighter in join order, rerolls after."""

    combat: str


class TakeAction(msgspec.Struct, frozen=True, kw_only=True):
    """Dice: the duration's dice when the action's duration is rolled (e.g. chercher_sac: one d4)."""

    combat: str
    actor: str
    what: str = ""
    action: str = ""
    seconds: int | None = None
    times: int = 1
    aid: str = ""


class PassTurn(msgspec.Struct, frozen=True, kw_only=True):
    combat: str
    actor: str


class Attack(msgspec.Struct, frozen=True, kw_only=True):
    """Dice: the d20, then the damage dice if it hits; with ``chain`` the two d20, then the damage of each hit."""

    combat: str
    actor: str
    target: str
    weapon: str = ""
    projectile: str = ""
    distance: int | None = None
    chain: bool = False
    back: bool = False


class CastSpell(msgspec.Struct, frozen=True, kw_only=True):
    """Dice: the d20 of concentration; without incantation, then the effects' dice target by target."""

    combat: str
    actor: str
    spell: str
    effects: dict[str, int] = {}
    targets: list[str] = []
    penalties: list[str] = []
    lowered_dm: dict[str, int] = {}
    time: str = ""
    accompanying: int | None = None


class ReleaseSpell(msgspec.Struct, frozen=True, kw_only=True):
    """Dice: the effects' dice, target by target, effect by effect."""

    combat: str
    actor: str


class StoreInCrystal(msgspec.Struct, frozen=True, kw_only=True):
    """Dice: the spell's d20, Fermeture Cristalline's d20, then the explosion's d4s when over capacity."""

    combat: str
    actor: str
    crystal: str
    spell: str
    effects: dict[str, int] = {}
    capacity: int | None = None
    penalties: list[str] = []
    time: str = ""


class ReleaseCrystal(msgspec.Struct, frozen=True, kw_only=True):
    """Dice: Libération Cristalline's d20, then the stored spell's effect dice target by target."""

    combat: str
    actor: str
    crystal: str
    targets: list[str] = []
    lowered_dm: dict[str, int] = {}
    penalties: list[str] = []


class UsePotion(msgspec.Struct, frozen=True, kw_only=True):
    """Dice: the effect dice of the potion's spell on its target."""

    combat: str
    actor: str
    spell: str
    effects: dict[str, int] = {}
    trigger: str = "ingestion"
    target: str = ""
    seconds: int | None = None


class UseAbility(msgspec.Struct, frozen=True, kw_only=True):
    combat: str
    actor: str
    ability: str
    seconds: int
    target: str = ""


class UseAlignment(msgspec.Struct, frozen=True, kw_only=True):
    combat: str
    actor: str
    target: str
    kind: Literal["heal", "harm"]
    points: int


class Reroll(msgspec.Struct, frozen=True, kw_only=True):
    """Dice: the new d20, then the damage dice if it now hits."""

    combat: str
    actor: str


class EndCombat(msgspec.Struct, frozen=True, kw_only=True):
    combat: str


# =========================================================================== reading the numbers

def _combat(state: Any, name: str) -> Combat:
    cb = state.combats.get(name)
    if cb is None:
        raise UnknownEntity(f"There is no combat named {name!r}; start it with 'combat start'.")
    return cb


def _active(state: Any, name: str) -> Combat:
    cb = _combat(state, name)
    if not cb.active:
        raise RuleError(f"The combat {name!r} has ended.")
    return cb


def _fighter(cb: Combat, fid: str) -> Fighter:
    f = cb.fighters.get(fid)
    if f is None:
        raise UnknownEntity(f"{fid} is not in the combat {cb.name!r}.")
    return f


def _sheet(state: Any, ch: characters.Character, mode: str) -> dict[str, Any]:
    """A character's numbers from its sheet (``characters.sheet``): stable and fixed states, pools, PV/PM."""
    pack = content(state)
    sh = characters.sheet(ch, pack, mode)
    st, fixed = sh["stable"], sh["fixed_effective"]
    race = race_for_sex(pack.race(ch.race), ch.sex)
    bare = stable_states(race, ch.classes, characters.current_fixed(ch), characters.equipped(ch), weapon=None,
                         mode=mode, content=pack)  # type: ignore[arg-type]
    main = next((w for w in sh["weapons"]), None)
    return {
        "ATT": st["ATT"], "ATT0": bare.ATT, "DP": st["DP"], "DM": st["DM"], "CNC": st["CNC"], "DMG": st["DMG"],
        "PVmax": st["PVmax"], "PMmax": st["PMmax"], "REF": fixed["REF"], "CON": fixed["CON"], "FRC": fixed["FRC"],
        "PVrace": race.pv_initial, "PMrace": race.pm_initial, "race": race.name, "ALIGN": ch.alignment,
        "CHANCE": ch.luck, "VOLEUR": next((v for k, v in ch.classes.items() if k.casefold() == "voleur"), 0),
        "VOL_LEFT": sh["vol"]["left"], "CHANCE_LEFT": sh["chance"]["rerolls"] - ch.pools_used.get("chance", 0),
        "ALIGN_LEFT": sh["alignment_pool"]["left"], "IT": main["IT"] if main else None,
    }


def numbers(state: Any, cb: Combat, fid: str, mode: str) -> dict[str, Any]:
    """Everything known about a combatant: the sheet, then the GM's numbers, then current PV/PM."""
    f = _fighter(cb, fid)
    ch = state.characters.get(fid)
    out: dict[str, Any] = _sheet(state, ch, mode) if ch is not None else {}
    out.update(f.stats)
    if isinstance(f.stats.get("race"), str):
        race = content(state).race(str(f.stats["race"]))
        out.setdefault("PVrace", race.pv_initial)
        out.setdefault("PMrace", race.pm_initial)
        if "PVrace" in f.stats:
            out["PVrace"] = f.stats["PVrace"]
    out["PV"] = _current(ch, f, out, "pv", "PV", "PVmax")
    out["PM"] = _current(ch, f, out, "pm", "PM", "PMmax")
    return out


def _current(ch: Any, f: Fighter, out: dict[str, Any], attr: str, key: str, max_key: str) -> int | None:
    if ch is not None and isinstance(getattr(ch, attr, None), int) and key not in f.stats:
        return getattr(ch, attr)
    own = getattr(f, attr)
    if own is not None:
        return own
    value = out.get(key, out.get(max_key))
    return value if isinstance(value, int) else None


def _need(nums: dict[str, Any], fid: str, key: str) -> Any:
    value = nums.get(key)
    if value is None:
        raise RuleError(f"No {key} is known for {fid}; give it with --stat {fid}:{key}=N.")
    return value


def _int(nums: dict[str, Any], key: str, default: int = 0) -> int:
    value = nums.get(key, default)
    return value if isinstance(value, int) else default


def _check_stats(state: Any, fid: str, stats: dict[str, int | str]) -> dict[str, int | str]:
    out: dict[str, int | str] = {}
    for key, value in stats.items():
        canon = next((k for k in STAT_KEYS if k.casefold() == key.casefold()), None)
        if canon is None:
            raise RuleError(f"Unknown number {key!r} for {fid}; known: {', '.join(STAT_KEYS)}.")
        if canon == "DMG":
            try:
                parse(str(value))
            except DiceError as exc:
                raise RuleError(f"The DMG of {fid} is not a dice expression: {exc}") from None
            out[canon] = str(value)
        elif canon == "race":
            out[canon] = content(state).race(str(value)).name
        else:
            try:
                out[canon] = int(value)
            except (TypeError, ValueError):
                raise RuleError(f"{canon} of {fid} must be a whole number, not {value!r}.") from None
    return out


# =========================================================================== the timeline

def timeline(state: Any, cb: Combat, mode: str) -> tuple[c.Combatant, ...]:
    """The fight as the pure timeline sees it (unconscious and dead fighters are skipped)."""
    return tuple(
        c.Combatant(name=f.id, it=cb.it[f.id], ref=_int(numbers(state, cb, f.id, mode), "REF"),
                    active=f.condition == "conscious")
        for f in cb.fighters.values()
    )


def _valid_ties(cb: Combat) -> dict[str, int]:
    return {k: v for k, v in cb.tie_rolls.items() if cb.tie_it is not None and cb.it.get(k) == cb.tie_it}


def whose_turn(state: Any, name: str, mode: str = "round") -> str:
    """Who acts now: the smallest IT, then the higher REF, then the recorded tie-break die (L1200-L1202)."""
    cb = _combat(state, name)
    line = timeline(state, cb, mode)
    tied = c.tied_for_dice(line)
    ties = _valid_ties(cb)
    if tied and any(t not in ties for t in tied):
        raise RuleError(f"{' and '.join(tied)} are tied on IT and REF; run 'combat next {name}' to roll the tie-break.")
    return c.next_actor(line, ties)


def _now(cb: Combat) -> int | None:
    its = [cb.it[f.id] for f in cb.fighters.values() if f.condition == "conscious"]
    return min(its) if its else None


def _turn(state: Any, cb: Combat, fid: str, mode: str, *, releasing: bool = False) -> Fighter:
    f = _fighter(cb, fid)
    if f.condition != "conscious":
        raise RuleError(f"{fid} is {f.condition} and cannot act.")
    actor = whose_turn(state, cb.name, mode)
    if actor != fid:
        raise RuleError(f"It is {actor}'s turn (smallest IT), not {fid}'s.")
    if f.incantation is not None and not releasing:
        raise RuleError(f"{fid} is incanting {f.incantation.spell}; release it with 'combat release {cb.name} {fid}'.")
    return f


# =========================================================================== consequences

class _Scratch:
    """PV, PM and conditions as they change during one decision, and the events that record it."""

    def __init__(self, state: Any, cb: Combat, mode: str):
        self.state, self.cb, self.mode = state, cb, mode
        self.pv: dict[str, int] = {}
        self.cond: dict[str, str] = {}
        self.events: list[Event] = []

    def nums(self, fid: str) -> dict[str, Any]:
        return numbers(self.state, self.cb, fid, self.mode)

    def pv_of(self, fid: str) -> int:
        if fid not in self.pv:
            self.pv[fid] = _need(self.nums(fid), fid, "PV")
        return self.pv[fid]

    def cond_of(self, fid: str) -> str:
        return self.cond.get(fid, self.cb.fighters[fid].condition)

    def change(self, fid: str, delta: int, cause: str, *, cap: int | None = None) -> None:
        if self.cond_of(fid) == "dead" or delta == 0:
            return
        nums = self.nums(fid)
        before = c.Vitals(pv=self.pv_of(fid), state=self.cond_of(fid))  # type: ignore[arg-type]
        after = c.change_pv(before, delta, race_pv=_int(nums, "PVrace"), con=_int(nums, "CON"), pv_max=cap)
        self.pv[fid] = after.pv
        self.events.append(PvChanged(name=self.cb.name, character=fid, delta=after.pv - before.pv,
                                     pv_after=after.pv, cause=cause))
        if after.state != before.state:
            self.cond[fid] = after.state
            self.events.append(ConditionChanged(name=self.cb.name, character=fid, condition=after.state,
                                                pv=after.pv))


def _spell_effects(spell: SpellDef) -> dict[str, m.VariableEffect]:
    return {e.name.casefold(): m.VariableEffect(name=e.name, scale=e.scale, unit=e.unit, reduction=e.reduction)
            for e in spell.effects}


def _spends(spell: SpellDef, given: dict[str, int]) -> list[m.EffectSpend]:
    known = _spell_effects(spell)
    out = []
    for key, pm in given.items():
        eff = known.get(key.casefold())
        if eff is None:
            raise UnknownEntity(f"{spell.name} has no effect {key!r}; its effects: "
                                f"{', '.join(e.name for e in spell.effects) or 'none'}.")
        out.append(m.EffectSpend(effect=eff, pm=pm))
    missing = [e.name for e in spell.effects if e.name.casefold() not in {k.casefold() for k in given}]
    if missing:
        raise RuleError(f"{spell.name} needs PM in every variable effect (L993); missing: {', '.join(missing)}.")
    return out


def _apply_effects(sc: _Scratch, dice: Dice, caster: str, spell_name: str, spends: list[m.EffectSpend],
                   targets: list[str], lowered: dict[str, int], mode: str) -> list[TargetResult]:
    """Effects per target after its DM (L1024-L1036); DMG effects hurt, each target rolls its own dice."""
    results = []
    for tid in targets:
        nums = sc.nums(tid)
        dm = _int(nums, "DM")
        outcomes = m.reduce_effects(spends, dm, lowered_dm=lowered.get(tid))
        effects, damage = [], 0
        for out in outcomes:
            roll = m.roll_effect(dice, out)
            value = roll.total if roll is not None else (int(out.amount) if out.amount.lstrip("-").isdigit() else None)
            if out.unit.upper() == "DMG" and value:
                damage += max(value, 0)
            effects.append(EffectResult(name=out.name, unit=out.unit, pm_after=out.pm_after, amount=out.amount,
                                        value=value, roll=roll))
        results.append(TargetResult(target=tid, dm=lowered.get(tid, dm), effects=effects, damage=damage))
        if damage:
            _hurt(sc, dice, tid, damage, f"{spell_name} de {caster}", mode)
    return results


def _hurt(sc: _Scratch, dice: Dice, tid: str, damage: int, cause: str, mode: str, settings: Any = None) -> None:
    """Damage, then deconcentration of a target hit during its incantation (L969-L972)."""
    sc.change(tid, -damage, cause)
    f = sc.cb.fighters[tid]
    inc = f.incantation
    if inc is None or damage <= 0 or any(isinstance(e, Deconcentrated) and e.caster == tid for e in sc.events):
        return
    margin, roll = inc.margin, None
    if settings is not None and not settings.deconcentration_reuses_cast_roll:
        roll = dice.roll("1d20", purpose="deconcentration")
        margin = inc.cnc + inc.penalty + roll.total - inc.spell_cnc
    check = m.ConcentrationResult(cnc=inc.cnc, penalty=inc.penalty, die=0, total=inc.spell_cnc + margin,
                                  spell_cnc=inc.spell_cnc, success=True, margin=margin)
    if m.deconcentrates(damage, check, m.SpellTime(kind="incantation", seconds=inc.until)):
        sc.events.append(Deconcentrated(name=sc.cb.name, caster=tid, spell=inc.spell, damage=damage, margin=margin,
                                        roll=roll))


def _item(state: Any, name: str) -> ItemTemplate | None:
    return content(state).item(name) if name else None


def _time_of(spell: SpellDef, override: str) -> m.SpellTime:
    raw: Any = override or spell.time
    if raw is None or raw == "":
        raise RuleError(f"The Temps of {spell.name} is not printed; give it with --time SECONDS or INSTANTANÉ.")
    if isinstance(raw, str) and raw.strip().lstrip("-").isdigit():
        raw = int(raw)
    return m.parse_spell_time(raw)


def _finish(state: Any, name: str, events: list[Event], mode: str) -> list[Emit]:
    """Fold the decision's events, then let the unconscious bleed for the time that passed (L371)."""
    after = state
    for ev in events:
        after = _apply(after, ev)
    cb = after.combats[name]
    before_clock = state.combats[name].clock if name in state.combats else 0
    now = _now(cb)
    passed = (now - before_clock) if now is not None else 0
    extra: list[Event] = []
    if passed > 0:
        for f in cb.fighters.values():
            if f.condition != "unconscious" or f.aided:
                continue
            nums = numbers(after, cb, f.id, mode)
            pv = _need(nums, f.id, "PV")
            v = c.bleed(c.Vitals(pv=pv, state="unconscious", bleed_seconds=f.bleed_seconds), passed,
                        race_pv=_int(nums, "PVrace"), con=_int(nums, "CON"))
            extra.append(Bled(name=name, character=f.id, seconds=passed, pv_lost=pv - v.pv, pv_after=v.pv,
                              carry=v.bleed_seconds))
            if v.state != "unconscious":
                extra.append(ConditionChanged(name=name, character=f.id, condition=v.state, pv=v.pv))
    return [Emit(stream(name), ev) for ev in [*events, *extra]]


# =========================================================================== decisions

def _entry(state: Any, fid: str, it: int, stats: dict[str, int | str]) -> FighterEntry:
    if not fid.strip():
        raise RuleError("A combatant needs an id.")
    checked = _check_stats(state, fid, stats)
    ch = state.characters.get(fid)
    if ch is not None and ch.dead:
        raise RuleError(f"{fid} is dead (L373) and cannot fight.")
    if fid not in state.characters and not checked:
        raise UnknownEntity(f"{fid} is neither a character of the campaign nor described with --stat {fid}:KEY=N.")
    return FighterEntry(id=fid, it=it, stats=checked)


def decide_start(state: Any, cmd: StartCombat, ctx: Context) -> list[Emit]:
    if not cmd.combat.strip():
        raise RuleError("A combat needs a name.")
    old = state.combats.get(cmd.combat)
    if old is not None and old.active:
        raise RuleError(f"The combat {cmd.combat!r} is already going on.")
    if not cmd.fighters:
        raise RuleError("A combat needs at least one combatant (--with ID).")
    if len(set(cmd.fighters)) != len(cmd.fighters):
        raise RuleError("A combatant is named twice in --with.")
    stray = sorted((set(cmd.its) | set(cmd.stats)) - set(cmd.fighters))
    if stray:
        raise RuleError(f"{stray[0]} is given an IT or numbers but is not in --with.")
    entries = [_entry(state, fid, cmd.its.get(fid, 0), cmd.stats.get(fid, {})) for fid in cmd.fighters]
    return [Emit(stream(cmd.combat), CombatStarted(name=cmd.combat, fighters=entries))]


def decide_join(state: Any, cmd: JoinCombat, ctx: Context) -> list[Emit]:
    cb = _active(state, cmd.combat)
    if cmd.fighter in cb.fighters:
        raise RuleError(f"{cmd.fighter} is already in the combat {cmd.combat!r}.")
    its = [cb.it[f.id] for f in cb.fighters.values() if f.condition == "conscious"]
    it = cmd.it if cmd.it is not None else c.newcomer_it(its, ctx.rounding)  # type: ignore[arg-type]
    ev = CombatJoined(name=cmd.combat, fighter=_entry(state, cmd.fighter, it, dict(cmd.stats)),
                      averaged=cmd.it is None)
    return _finish(state, cmd.combat, [ev], ctx.rounding)


def decide_initiative(state: Any, cmd: RollInitiative, ctx: Context) -> list[Emit]:
    cb = _active(state, cmd.combat)
    if cb.actions:
        raise RuleError("Initiative is rolled only once, at the very start of the combat (L1315).")
    ids = list(cmd.fighters) or list(cb.fighters)
    dice = ctx.dice()
    results = []
    for fid in ids:
        f = _fighter(cb, fid)
        if f.initiative or fid in [r.id for r in results]:
            raise RuleError(f"{fid} has already rolled initiative in this combat.")
        ini = c.roll_initiative(dice, _int(numbers(state, cb, fid, ctx.rounding), "REF"), cb.it[fid])
        assert ini.roll is not None
        results.append(InitiativeResult(id=fid, base_it=ini.base_it, ref=ini.ref, die=ini.die, it=ini.it,
                                        roll=ini.roll))
    return [Emit(stream(cmd.combat), InitiativeRolled(name=cmd.combat, results=results))]


def decide_next(state: Any, cmd: NextTurn, ctx: Context) -> list[Emit]:
    cb = _active(state, cmd.combat)
    line = timeline(state, cb, ctx.rounding)
    tied = c.tied_for_dice(line)
    ties = _valid_ties(cb)
    if not tied or all(t in ties for t in tied):
        c.next_actor(line, ties)  # "No combatant is able to act." when all are down
        return []
    rolls = c.roll_tie_break(ctx.dice(), tied)
    winner = c.next_actor(line, {k: r.total for k, r in rolls.items()})
    return [Emit(stream(cmd.combat), TieBroken(name=cmd.combat, it=cb.it[tied[0]], rolls=rolls, winner=winner))]


def decide_act(state: Any, cmd: TakeAction, ctx: Context) -> list[Emit]:
    cb = _active(state, cmd.combat)
    _turn(state, cb, cmd.actor, ctx.rounding)
    if (cmd.seconds is None) == (not cmd.action):
        raise RuleError("Give the action's duration in seconds or a key of the duration table, not both.")
    rolls: list[Roll] = []
    if cmd.action:
        d = c.action_duration(cmd.action, ctx.dice() if isinstance(c.action(cmd.action).duration, str) else None,
                              times=cmd.times)
        seconds, rolls, label = d.seconds, list(d.rolls), c.action(cmd.action).label
    else:
        if cmd.seconds is None or cmd.seconds < 0:
            raise RuleError(f"An action cannot last {cmd.seconds} seconds.")
        seconds, label = cmd.seconds, ""
    if cmd.aid:
        target = _fighter(cb, cmd.aid)
        if target.condition != "unconscious":
            raise RuleError(f"{cmd.aid} is {target.condition}; only an unconscious character can be helped.")
    ev = ActionTaken(name=cmd.combat, actor=cmd.actor, what=cmd.what or label, seconds=seconds, action=cmd.action,
                     rolls=rolls, aided=cmd.aid)
    return _finish(state, cmd.combat, [ev], ctx.rounding)


def decide_pass(state: Any, cmd: PassTurn, ctx: Context) -> list[Emit]:
    cb = _active(state, cmd.combat)
    _turn(state, cb, cmd.actor, ctx.rounding)
    line = c.pass_turn(timeline(state, cb, ctx.rounding), cmd.actor, tie_rolls=_valid_ties(cb))
    new_it = next(x.it for x in line if x.name == cmd.actor)
    ev = TurnPassed(name=cmd.combat, actor=cmd.actor, seconds=new_it - cb.it[cmd.actor])
    return _finish(state, cmd.combat, [ev], ctx.rounding)


def _left(state: Any, nums: dict[str, Any], f: Fighter, pool: str) -> int:
    """What is left today of a daily pool: the character's (its sheet) or the extra's (GM numbers)."""
    own = state.characters.get(f.id) is not None
    match pool:
        case "Vol":
            if own and "VOL" not in f.stats:
                return int(nums["VOL_LEFT"])
            level = _int(nums, "VOLEUR")
            per_day = content(state).class_def("Voleur").patterns["Vol*"].value(level) if level else 0
            return _int(nums, "VOL", per_day) - f.vol_spent
        case "alignment":
            if own and "ALIGN" not in f.stats:
                return int(nums["ALIGN_LEFT"])
            return al.daily_pool(_int(nums, "ALIGN")) - f.align_spent
        case _:
            if own and "CHANCE" not in f.stats:
                return int(nums["CHANCE_LEFT"])
            return al.chance_rerolls(_int(nums, "CHANCE"))[0] - f.rerolls


def _voleur_check(state: Any, nums: dict[str, Any], f: Fighter, ability: str) -> int:
    from .progression import check_ability

    cls = content(state).class_def("Voleur")
    return check_ability(cls, ability, _int(nums, "VOLEUR"), _left(state, nums, f, "Vol")).cost


def _arms(state: Any, fid: str, weapon: ItemTemplate | None,
          projectile: ItemTemplate | None) -> tuple[ItemTemplate | None, ItemTemplate | None]:
    """A character attacks with what it carries: the weapon equipped (L877), a projectile in its bag."""
    ch = state.characters.get(fid)
    if ch is None:
        return weapon, projectile
    carried = {i.name.casefold(): i for i in ch.items}
    if weapon is not None:
        own = carried.get(weapon.name.casefold())
        if own is None or not own.equipped:
            raise RuleError(f"{weapon.name} must be equipped by {fid} to attack with it (L877).")
        weapon = own.template
    if projectile is not None:
        own = carried.get(projectile.name.casefold())
        if own is None or own.qty < 1:
            raise RuleError(f"{fid} carries no {projectile.name}.")
        projectile = own.template
    return weapon, projectile


def decide_attack(state: Any, cmd: Attack, ctx: Context) -> list[Emit]:
    mode = ctx.rounding
    cb = _active(state, cmd.combat)
    f = _turn(state, cb, cmd.actor, mode)
    target = _fighter(cb, cmd.target)
    if target.condition == "dead":
        raise RuleError(f"{cmd.target} is dead and can no longer be attacked.")
    if cmd.target == cmd.actor:
        raise RuleError("A combatant cannot attack itself.")
    a, t = numbers(state, cb, cmd.actor, mode), numbers(state, cb, cmd.target, mode)
    weapon, projectile = _arms(state, cmd.actor, _item(state, cmd.weapon), _item(state, cmd.projectile))
    propulsor = weapon if weapon is not None and weapon.kind == "propulsor" else None
    if propulsor is not None and projectile is None:
        raise RuleError(f"{propulsor.name} needs a projectile (--projectile).")
    ranged = projectile is not None or (weapon is not None and weapon.kind == "thrown")
    penalty = 0
    if cmd.distance is not None:
        if not ranged:
            raise RuleError("A melee attack has no range; --distance needs --projectile or a thrown weapon.")
        reach = propulsor.range_m if propulsor is not None else None
        penalty = c.range_penalty(cmd.distance, frc=_int(a, "FRC") if reach is None else None, propulsor_range_m=reach)
    dp = _need(t, cmd.target, "DP")
    align_pen = al.penalty(al.reaction(_int(a, "ALIGN"), _int(t, "ALIGN")))
    frc = {"FRC": _int(a, "FRC")}
    if weapon is None and projectile is None:
        # the attacker's own ATT and DMG (its main weapon, or the GM's numbers); IT 6 when none (L1263)
        att, weapon_att = _need(a, cmd.actor, "ATT"), 0
        dmg = a["DMG"] if isinstance(a.get("DMG"), str) else stable_dmg(frc, None, mode)[0]  # type: ignore[arg-type]
        seconds = c.attack_duration(a.get("IT") if isinstance(a.get("IT"), int) else None)
    else:
        att = a["ATT0"] if "ATT0" in a and "ATT" not in f.stats else _need(a, cmd.actor, "ATT")
        weapon_att = sum(i.att for i in (weapon, projectile) if i is not None)
        if projectile is not None:  # no FRC bonus for projectiles; the propulsor's DMG bonus adds (L1340, L1346)
            extra = propulsor.dmg if propulsor is not None and propulsor.dmg.strip() not in ("", "0") else ""
            dmg = projectile.dmg + (f"+{extra}" if extra else "")
            p_it = propulsor.it if propulsor is not None else None
            seconds = c.attack_duration(projectile.it, p_it) if projectile.it is not None else c.attack_duration(p_it)
        else:
            assert weapon is not None
            dmg = stable_dmg(frc, weapon, mode)[0]  # type: ignore[arg-type]
            seconds = c.attack_duration(weapon.it)
    vol = _voleur_check(state, a, f, "Attaque de dos") if cmd.back else 0
    dice = ctx.dice()
    if cmd.chain:
        if ctx.settings.chain_attacks < 2:
            raise RuleError("Chained attacks are turned off in this campaign (setting chain_attacks).")
        checks = list(c.roll_chained_attack(dice, att, dp, mode, weapon_att=weapon_att, range_penalty=penalty,
                                            alignment_penalty=align_pen))
    else:
        checks = [c.roll_attack(dice, att, dp, weapon_att=weapon_att, range_penalty=penalty,
                                alignment_penalty=align_pen)]
    sc = _Scratch(state, cb, mode)
    swings = []
    for chk in checks:
        dmg_amount, dmg_roll = 0, None
        if chk.hit and sc.cond_of(cmd.target) != "dead":
            hit = c.roll_damage(dice, dmg, mode, backstab=cmd.back)
            dmg_amount, dmg_roll = hit.amount, hit.roll
            _hurt(sc, dice, cmd.target, dmg_amount, f"attaque de {cmd.actor}", mode, ctx.settings)
        swings.append(Swing(die=chk.die, total=chk.total, hit=chk.hit, roll=chk.roll, damage=dmg_amount,
                            damage_roll=dmg_roll))
    ev = AttackResolved(name=cmd.combat, attacker=cmd.actor, target=cmd.target, att=checks[0].att, dp=dp,
                        swings=swings, seconds=seconds, weapon=weapon.name if weapon else "",
                        projectile=projectile.name if projectile else "", distance=cmd.distance,
                        range_penalty=penalty, alignment_penalty=align_pen, chain=cmd.chain, back=cmd.back,
                        vol_spent=vol, dmg=dmg)
    return _finish(state, cmd.combat, [ev, *sc.events], mode)


def _pay(sc: _Scratch, caster: str, nums: dict[str, Any], base_pm: int, spell_cnc: int,
         spends: list[m.EffectSpend], dice: Dice, ctx: Context, penalties: list[str], align_pen: int,
         pm_max: int | None) -> m.CastResult:
    pm = _need(nums, caster, "PM")
    return m.cast_spell(caster_pm=pm, caster_cnc=_need(nums, caster, "CNC"), base_pm=base_pm, spell_cnc=spell_cnc,
                        spends=spends, dice=dice, pm_max=pm_max, situations=penalties, alignment_penalty=align_pen,
                        allow_overdraw=ctx.settings.pm_overdraw, magic_capable=nums.get("PMrace") != 0)


def _worst_alignment(nums: dict[str, Any], sc: _Scratch, targets: list[str]) -> int:
    pens = [al.penalty(al.reaction(_int(nums, "ALIGN"), _int(sc.nums(t), "ALIGN"))) for t in targets]
    return min(pens, default=0)


def decide_cast(state: Any, cmd: CastSpell, ctx: Context) -> list[Emit]:
    mode = ctx.rounding
    cb = _active(state, cmd.combat)
    _turn(state, cb, cmd.actor, mode)
    spell = content(state).spell(cmd.spell)
    for tid in cmd.targets:
        if _fighter(cb, tid).condition == "dead":
            raise RuleError(f"{tid} is dead; a spell cannot target it.")
    stray = sorted(set(cmd.lowered_dm) - set(cmd.targets))
    if stray:
        raise RuleError(f"{stray[0]} lowers its DM but is not a target of the spell.")
    spends = _spends(spell, dict(cmd.effects))
    time = _time_of(spell, cmd.time)
    if time.kind == "simultane" and cmd.accompanying is None:
        raise RuleError(f"{spell.name} is SIMULTANÉ: give the duration of the accompanying action (--with-action S).")
    sc = _Scratch(state, cb, mode)
    nums = sc.nums(cmd.actor)
    dice = ctx.dice()
    res = _pay(sc, cmd.actor, nums, spell.pm_base, spell.cnc, spends, dice, ctx, list(cmd.penalties),
               _worst_alignment(nums, sc, list(cmd.targets)), spell.pm_max)
    chk = res.concentration
    dur = m.spell_durations(time, spell.cnc, mode, success=chk.success, accompanying_seconds=cmd.accompanying)  # type: ignore[arg-type]
    if spell.combustion is not None and chk.success and time.kind != "simultane":
        dur = m.SpellDurations(incantation=dur.incantation, combustion=spell.combustion)
    cast = SpellCast(name=cmd.combat, caster=cmd.actor, spell=spell.name, spends={s.effect.name: s.pm for s in spends},
                     targets=list(cmd.targets), pm_cost=res.pm_cost, pm_before=res.pm_before, pm_after=res.pm_after,
                     overdraw_pv=res.pv_damage, cnc=chk.cnc, penalty=chk.penalty, die=chk.die, total=chk.total,
                     spell_cnc=chk.spell_cnc, success=chk.success, margin=chk.margin, time=time.kind,
                     incantation=dur.incantation, combustion=dur.combustion, roll=chk.roll,
                     penalties=list(cmd.penalties), lowered_dm=dict(cmd.lowered_dm))
    sc.events.append(PmSpent(name=cmd.combat, character=cmd.actor, pm=res.pm_before - res.pm_after,
                             pm_after=res.pm_after))
    sc.change(cmd.actor, -res.pv_damage, f"{spell.name} : PM puisés sous 0")
    head: list[Event] = [cast]
    if chk.success and dur.incantation == 0 and sc.cond_of(cmd.actor) == "conscious":
        results = _apply_effects(sc, dice, cmd.actor, spell.name, spends, list(cmd.targets), dict(cmd.lowered_dm), mode)
        head.append(SpellReleased(name=cmd.combat, caster=cmd.actor, spell=spell.name, results=results,
                                  combustion=dur.combustion))
    return _finish(state, cmd.combat, [*head, *sc.events], mode)


def decide_release(state: Any, cmd: ReleaseSpell, ctx: Context) -> list[Emit]:
    mode = ctx.rounding
    cb = _active(state, cmd.combat)
    f = _turn(state, cb, cmd.actor, mode, releasing=True)
    inc = f.incantation
    if inc is None:
        raise RuleError(f"{cmd.actor} is not incanting any spell.")
    spell = content(state).spell(inc.spell)
    spends = [s for s in _spends(spell, inc.spends)]
    sc = _Scratch(state, cb, mode)
    targets = [t for t in inc.targets if cb.fighters[t].condition != "dead"]
    results = _apply_effects(sc, ctx.dice(), cmd.actor, spell.name, spends, targets, dict(inc.lowered_dm), mode)
    ev = SpellReleased(name=cmd.combat, caster=cmd.actor, spell=spell.name, results=results, combustion=inc.combustion)
    return _finish(state, cmd.combat, [ev, *sc.events], mode)


def _crystal_spell(state: Any, key: str) -> SpellDef:
    return content(state).spell(m.crystal_spell(key).name)


def decide_store(state: Any, cmd: StoreInCrystal, ctx: Context) -> list[Emit]:
    mode = ctx.rounding
    cb = _active(state, cmd.combat)
    _turn(state, cb, cmd.actor, mode)
    crystals = getattr(state, "crystals", {})
    crystal = crystals.get(cmd.crystal)
    if crystal is None:
        if cmd.capacity is None:
            raise RuleError(f"The crystal {cmd.crystal!r} is new: give its capacity in PM (--capacity N).")
        crystal = m.Crystal(capacity=cmd.capacity)
    elif cmd.capacity is not None and cmd.capacity != crystal.capacity:
        raise RuleError(f"The crystal {cmd.crystal!r} holds {crystal.capacity} PM, not {cmd.capacity}.")
    if crystal.destroyed:
        raise RuleError(f"The crystal {cmd.crystal!r} was destroyed by an explosion.")
    if crystal.stored is not None:
        raise RuleError(f"The crystal {cmd.crystal!r} already holds {crystal.stored.name}; release it first.")
    spell = content(state).spell(cmd.spell)
    spends = _spends(spell, dict(cmd.effects))
    time = _time_of(spell, cmd.time)
    sc = _Scratch(state, cb, mode)
    nums = sc.nums(cmd.actor)
    dice = ctx.dice()
    first = _pay(sc, cmd.actor, nums, spell.pm_base, spell.cnc, spends, dice, ctx, list(cmd.penalties), 0,
                 spell.pm_max)
    ferm = _crystal_spell(state, "fermeture_cristalline")
    ferm_pm = m.fermeture_pm(first.pm_cost)
    nums2 = {**nums, "PM": first.pm_after}
    second = _pay(sc, cmd.actor, nums2, ferm_pm, ferm.cnc, [], dice, ctx, list(cmd.penalties), 0, None)
    stored = m.StoredSpell(name=spell.name, pm=first.pm_cost, spends=tuple(spends))
    result = m.store_in_crystal(crystal, stored, spell_success=first.success, fermeture_success=second.success)
    # Fermeture is SIMULTANÉ: its combustion is the stored spell's cast (D23); a failure pays the incantation only
    dur = m.spell_durations(time, spell.cnc, mode, success=first.success and second.success)  # type: ignore[arg-type]
    explosion, blast = "", None
    if result.outcome == "exploded" and result.explosion is not None:
        blast = m.roll_explosion(dice, result.explosion)
        explosion = result.explosion.expr
    pm_after = second.pm_after
    overdraw = first.pv_damage + second.pv_damage
    ev = CrystalStored(name=cmd.combat, caster=cmd.actor, crystal=cmd.crystal, capacity=crystal.capacity,
                       spell=spell.name, spends=list(spends), pm=first.pm_cost,
                       fermeture_pm=ferm_pm, outcome=result.outcome, spell_roll=first.concentration.roll,
                       fermeture_roll=second.concentration.roll, spell_success=first.success,
                       fermeture_success=second.success, explosion=explosion,
                       explosion_roll=blast.roll if blast else None, seconds=dur.total,
                       pm_cost=first.pm_cost + ferm_pm, pm_after=pm_after, overdraw_pv=overdraw)
    sc.events.append(PmSpent(name=cmd.combat, character=cmd.actor, pm=nums["PM"] - pm_after, pm_after=pm_after))
    sc.change(cmd.actor, -overdraw, "Fermeture Cristalline : PM puisés sous 0")
    if blast is not None and blast.roll is not None:
        # the blast hits whoever is within 6 m: the caster holds the crystal (the GM adds the others)
        sc.change(cmd.actor, -blast.roll.total, f"explosion du cristal {cmd.crystal}")
    return _finish(state, cmd.combat, [ev, *sc.events], mode)


def decide_release_crystal(state: Any, cmd: ReleaseCrystal, ctx: Context) -> list[Emit]:
    mode = ctx.rounding
    cb = _active(state, cmd.combat)
    _turn(state, cb, cmd.actor, mode)
    crystal = getattr(state, "crystals", {}).get(cmd.crystal)
    if crystal is None:
        raise UnknownEntity(f"There is no crystal named {cmd.crystal!r}.")
    _, stored = m.release_crystal(crystal, cmd.actor)
    for tid in cmd.targets:
        if _fighter(cb, tid).condition == "dead":
            raise RuleError(f"{tid} is dead; a spell cannot target it.")
    lib = _crystal_spell(state, "liberation_cristalline")
    sc = _Scratch(state, cb, mode)
    nums = sc.nums(cmd.actor)
    dice = ctx.dice()
    res = _pay(sc, cmd.actor, nums, lib.pm_base, lib.cnc, [], dice, ctx, list(cmd.penalties), 0, None)
    dur = m.spell_durations(_time_of(lib, ""), lib.cnc, mode, success=res.success)  # type: ignore[arg-type]
    ev = CrystalReleased(name=cmd.combat, caster=cmd.actor, crystal=cmd.crystal, success=res.success,
                         roll=res.concentration.roll, pm_cost=res.pm_cost, pm_after=res.pm_after, seconds=dur.total,
                         spell=stored.name if res.success else "", overdraw_pv=res.pv_damage)
    sc.events.append(PmSpent(name=cmd.combat, character=cmd.actor, pm=res.pm_before - res.pm_after,
                             pm_after=res.pm_after))
    sc.change(cmd.actor, -res.pv_damage, "Libération Cristalline : PM puisés sous 0")
    head: list[Event] = [ev]
    if res.success:
        results = _apply_effects(sc, dice, cmd.actor, stored.name, list(stored.spends), list(cmd.targets),
                                 dict(cmd.lowered_dm), mode)
        head.append(SpellReleased(name=cmd.combat, caster=cmd.actor, spell=stored.name, results=results,
                                  combustion=0, source="crystal"))
    return _finish(state, cmd.combat, [*head, *sc.events], mode)


def decide_potion(state: Any, cmd: UsePotion, ctx: Context) -> list[Emit]:
    mode = ctx.rounding
    cb = _active(state, cmd.combat)
    _turn(state, cb, cmd.actor, mode)
    spell = content(state).spell(cmd.spell)
    spends = _spends(spell, dict(cmd.effects))
    potion = m.make_potion(m.StoredSpell(name=spell.name, pm=m.spell_pm_cost(spell.pm_base, spends),
                                         spends=tuple(spends)), cmd.trigger)
    target = cmd.target or cmd.actor
    if _fighter(cb, target).condition == "dead":
        raise RuleError(f"{target} is dead; a potion cannot act on it.")
    released = m.trigger_potion(potion, cmd.trigger, target)
    assert released is not None
    if cmd.seconds is not None:
        seconds = cmd.seconds
    else:
        seconds = c.action_duration("boire_potion" if cmd.trigger == "ingestion" else "lancer_item").seconds
    sc = _Scratch(state, cb, mode)
    ev = PotionUsed(name=cmd.combat, actor=cmd.actor, spell=spell.name, pm=potion.spell.pm, trigger=cmd.trigger,
                    target=target, seconds=seconds)
    results = _apply_effects(sc, ctx.dice(), cmd.actor, spell.name, spends, [target], {}, mode)
    rel = SpellReleased(name=cmd.combat, caster=cmd.actor, spell=spell.name, results=results, combustion=0,
                        source="potion")
    return _finish(state, cmd.combat, [ev, rel, *sc.events], mode)


def decide_ability(state: Any, cmd: UseAbility, ctx: Context) -> list[Emit]:
    cb = _active(state, cmd.combat)
    f = _turn(state, cb, cmd.actor, ctx.rounding)
    if cmd.seconds < 0:
        raise RuleError(f"An action cannot last {cmd.seconds} seconds.")
    if cmd.target:
        _fighter(cb, cmd.target)
    from .progression import ability as find

    name = find(content(state).class_def("Voleur"), cmd.ability).name
    if name == "Attaque de dos":
        raise RuleError("Attaque de dos is an attack: use 'combat attack ... --back'.")
    cost = _voleur_check(state, numbers(state, cb, cmd.actor, ctx.rounding), f, name)
    ev = AbilityUsed(name=cmd.combat, actor=cmd.actor, ability=name, cost=cost, seconds=cmd.seconds,
                     target=cmd.target)
    return _finish(state, cmd.combat, [ev], ctx.rounding)


def decide_align(state: Any, cmd: UseAlignment, ctx: Context) -> list[Emit]:
    mode = ctx.rounding
    cb = _active(state, cmd.combat)
    f = _turn(state, cb, cmd.actor, mode)
    target = _fighter(cb, cmd.target)
    if target.condition == "dead":
        raise RuleError(f"{cmd.target} is dead; the alignment pool cannot reach it.")
    sc = _Scratch(state, cb, mode)
    a, t = sc.nums(cmd.actor), sc.nums(cmd.target)
    align = _int(a, "ALIGN")
    if (align > 0) != (cmd.kind == "heal") and align != 0:
        raise RuleError(f"{cmd.actor} is {'blessed' if align > 0 else 'cursed'} and can only "
                        f"{'heal' if align > 0 else 'harm'} (L1417).")
    pv_max = _int(t, "PVmax", sc.pv_of(cmd.target)) if ctx.settings.alignment_heal_caps_at_pvmax else 10**9
    use = al.use_pool(align, cmd.points, _left(state, a, f, "alignment"), sc.pv_of(cmd.target), pv_max)
    ev = AlignmentUsed(name=cmd.combat, actor=cmd.actor, target=cmd.target, kind=cmd.kind, points=cmd.points,
                       seconds=use.it_seconds, remaining=use.remaining)
    sc.change(cmd.target, use.pv_after - sc.pv_of(cmd.target), f"alignement de {cmd.actor}",
              cap=pv_max if cmd.kind == "heal" else None)
    return _finish(state, cmd.combat, [ev, *sc.events], mode)


def decide_reroll(state: Any, cmd: Reroll, ctx: Context) -> list[Emit]:
    mode = ctx.rounding
    cb = _active(state, cmd.combat)
    f = _fighter(cb, cmd.actor)
    if not ctx.settings.chance_enabled:
        raise RuleError("The Chance rule is turned off in this campaign (setting chance_enabled).")
    last = f.last_attack
    if last is None:
        raise RuleError(f"{cmd.actor} has no attack roll to redo in this combat.")
    if last.hit:
        raise RuleError(f"{cmd.actor}'s last attack hit; Chance redoes a missed roll.")
    nums = numbers(state, cb, cmd.actor, mode)
    left = _left(state, nums, f, "chance")
    if left < 1:
        raise RuleError(f"{cmd.actor} has no Chance reroll left today (L56).")
    if cb.fighters[last.target].condition == "dead":
        raise RuleError(f"{last.target} is dead and can no longer be attacked.")
    dice = ctx.dice()
    roll = dice.roll("1d20", purpose="chance reroll")
    total = c.rounding.divide(last.att + roll.total, 2, mode) if last.halved else last.att + roll.total  # type: ignore[arg-type]
    hit = total > last.dp
    sc = _Scratch(state, cb, mode)
    dmg_amount, dmg_roll = 0, None
    if hit:
        dealt = c.roll_damage(dice, last.dmg, mode, backstab=last.backstab)  # type: ignore[arg-type]
        dmg_amount, dmg_roll = dealt.amount, dealt.roll
        _hurt(sc, dice, last.target, dmg_amount, f"attaque de {cmd.actor} (Chance)", mode, ctx.settings)
    swing = Swing(die=roll.total, total=total, hit=hit, roll=roll, damage=dmg_amount, damage_roll=dmg_roll)
    ev = Rerolled(name=cmd.combat, character=cmd.actor, target=last.target, swing=swing, left=left - 1)
    return _finish(state, cmd.combat, [ev, *sc.events], mode)


def decide_end(state: Any, cmd: EndCombat, ctx: Context) -> list[Emit]:
    _active(state, cmd.combat)
    return [Emit(stream(cmd.combat), CombatEnded(name=cmd.combat))]


# =========================================================================== folds (pure)

def _put(state: Any, cb: Combat) -> Any:
    return msgspec.structs.replace(state, combats={**state.combats, cb.name: cb})


def _with_fighter(cb: Combat, fid: str, **changes: Any) -> Combat:
    f = msgspec.structs.replace(cb.fighters[fid], **changes)
    return msgspec.structs.replace(cb, fighters={**cb.fighters, fid: f})


def _add_it(cb: Combat, fid: str, seconds: int, *, action: bool = True) -> Combat:
    return msgspec.structs.replace(cb, it={**cb.it, fid: cb.it[fid] + seconds}, actions=cb.actions + int(action))


def _set_character(state: Any, cb: Combat, fid: str, attr: str, value: Any) -> tuple[Any, Combat]:
    """PV/PM live on the character when its struct has them, else on the fighter (an extra)."""
    ch = state.characters.get(fid)
    f = cb.fighters.get(fid)
    if ch is not None and isinstance(getattr(ch, attr, None), int) and not (f and attr.upper() in f.stats):
        chars = {**state.characters, fid: msgspec.structs.replace(ch, **{attr: value})}
        return msgspec.structs.replace(state, characters=chars), cb
    return state, _with_fighter(cb, fid, **{attr: value})


def _spend(state: Any, cb: Combat, fid: str, pool: str, attr: str, n: int) -> tuple[Any, Combat]:
    """A daily pool spent: on the character (``pools_used``), or on the extra's fighter."""
    ch = state.characters.get(fid)
    stat = {"Vol": "VOL", "alignment": "ALIGN", "chance": "CHANCE"}[pool]
    if n and ch is not None and stat not in cb.fighters[fid].stats:
        ch = msgspec.structs.replace(ch, pools_used={**ch.pools_used, pool: ch.pools_used.get(pool, 0) + n})
        return msgspec.structs.replace(state, characters={**state.characters, fid: ch}), cb
    return state, _with_fighter(cb, fid, **{attr: getattr(cb.fighters[fid], attr) + n})


def _condition_of(state: Any, fid: str) -> Condition:
    ch = state.characters.get(fid)
    if ch is None:
        return "conscious"
    return "dead" if ch.dead else "unconscious" if ch.unconscious else "conscious"


def _ev_started(state: Any, ev: CombatStarted) -> Any:
    fighters = {e.id: Fighter(id=e.id, stats=dict(e.stats), condition=_condition_of(state, e.id)) for e in ev.fighters}
    its = {e.id: e.it for e in ev.fighters}
    return _put(state, Combat(name=ev.name, it=its, fighters=fighters, clock=min(its.values())))


def _ev_joined(state: Any, ev: CombatJoined) -> Any:
    cb = state.combats[ev.name]
    e = ev.fighter
    cb = msgspec.structs.replace(cb, it={**cb.it, e.id: e.it},
                                 fighters={**cb.fighters, e.id: Fighter(id=e.id, stats=dict(e.stats),
                                                                        condition=_condition_of(state, e.id))})
    return _put(state, cb)


def _ev_initiative(state: Any, ev: InitiativeRolled) -> Any:
    cb = state.combats[ev.name]
    for r in ev.results:
        cb = msgspec.structs.replace(cb, it={**cb.it, r.id: r.it})
        cb = _with_fighter(cb, r.id, initiative=True)
    return _put(state, msgspec.structs.replace(cb, clock=min(cb.it.values())))


def _ev_tie(state: Any, ev: TieBroken) -> Any:
    cb = state.combats[ev.name]
    return _put(state, msgspec.structs.replace(cb, tie_it=ev.it, tie_rolls={k: r.total for k, r in ev.rolls.items()}))


def _ev_action(state: Any, ev: ActionTaken) -> Any:
    cb = _add_it(state.combats[ev.name], ev.actor, ev.seconds)
    if ev.aided:
        cb = _with_fighter(cb, ev.aided, aided=True)
    return _put(state, cb)


def _ev_passed(state: Any, ev: TurnPassed) -> Any:
    return _put(state, _add_it(state.combats[ev.name], ev.actor, ev.seconds))


def _ev_attack(state: Any, ev: AttackResolved) -> Any:
    cb = _add_it(state.combats[ev.name], ev.attacker, ev.seconds)
    f = cb.fighters[ev.attacker]
    last = ev.swings[-1]
    la = LastAttack(target=ev.target, att=ev.att, dp=ev.dp, halved=ev.chain, dmg=ev.dmg, backstab=ev.back, hit=last.hit)
    cb = _with_fighter(cb, ev.attacker, last_attack=la)
    state, cb = _spend(state, cb, ev.attacker, "Vol", "vol_spent", ev.vol_spent)
    return _put(state, cb)


def _ev_cast(state: Any, ev: SpellCast) -> Any:
    cb = _add_it(state.combats[ev.name], ev.caster, ev.incantation)
    if ev.success and ev.incantation > 0:
        inc = Incantation(spell=ev.spell, spends=dict(ev.spends), targets=list(ev.targets),
                          lowered_dm=dict(ev.lowered_dm), combustion=ev.combustion, margin=ev.margin,
                          until=cb.it[ev.caster], cnc=ev.cnc, penalty=ev.penalty, spell_cnc=ev.spell_cnc)
        cb = _with_fighter(cb, ev.caster, incantation=inc)
    return _put(state, cb)


def _ev_released(state: Any, ev: SpellReleased) -> Any:
    cb = state.combats[ev.name]
    if ev.source == "spell":
        cb = _add_it(cb, ev.caster, ev.combustion, action=False)
        cb = _with_fighter(cb, ev.caster, incantation=None)
    return _put(state, cb)


def _ev_deconcentrated(state: Any, ev: Deconcentrated) -> Any:
    return _put(state, _with_fighter(state.combats[ev.name], ev.caster, incantation=None))


def _ev_pv(state: Any, ev: PvChanged) -> Any:
    state, cb = _set_character(state, state.combats[ev.name], ev.character, "pv", ev.pv_after)
    return _put(state, cb)


def _ev_pm(state: Any, ev: PmSpent) -> Any:
    state, cb = _set_character(state, state.combats[ev.name], ev.character, "pm", ev.pm_after)
    return _put(state, cb)


def _ev_condition(state: Any, ev: ConditionChanged) -> Any:
    cb = state.combats[ev.name]
    changes: dict[str, Any] = {"condition": ev.condition, "bleed_seconds": 0}
    if ev.condition != "conscious":
        changes["incantation"] = None
    else:
        changes["aided"] = False
        cb = msgspec.structs.replace(cb, it={**cb.it, ev.character: max(cb.it[ev.character], cb.clock)})
    cb = _with_fighter(cb, ev.character, **changes)
    state, cb = _set_character(state, cb, ev.character, "pv", ev.pv)
    ch = state.characters.get(ev.character)
    if ch is not None:
        ch = msgspec.structs.replace(ch, dead=ev.condition == "dead", unconscious=ev.condition == "unconscious")
        state = msgspec.structs.replace(state, characters={**state.characters, ev.character: ch})
    return _put(state, cb)


def _ev_bled(state: Any, ev: Bled) -> Any:
    cb = _with_fighter(state.combats[ev.name], ev.character, bleed_seconds=ev.carry)
    state, cb = _set_character(state, cb, ev.character, "pv", ev.pv_after)
    return _put(state, cb)


def _crystals(state: Any, name: str, crystal: m.Crystal) -> Any:
    return msgspec.structs.replace(state, crystals={**state.crystals, name: crystal})


def _ev_stored(state: Any, ev: CrystalStored) -> Any:
    state = _put(state, _add_it(state.combats[ev.name], ev.caster, ev.seconds))
    crystal = state.crystals.get(ev.crystal) or m.Crystal(capacity=ev.capacity)
    if ev.outcome == "stored":
        crystal = msgspec.structs.replace(crystal, stored=m.StoredSpell(name=ev.spell, pm=ev.pm,
                                                                       spends=tuple(ev.spends)), locked_by=None)
    elif ev.outcome == "exploded":
        crystal = msgspec.structs.replace(crystal, destroyed=True)
    return _crystals(state, ev.crystal, crystal)


def _ev_crystal_released(state: Any, ev: CrystalReleased) -> Any:
    state = _put(state, _add_it(state.combats[ev.name], ev.caster, ev.seconds))
    if ev.success and ev.crystal in state.crystals:
        state = _crystals(state, ev.crystal, msgspec.structs.replace(state.crystals[ev.crystal], stored=None,
                                                                     locked_by=None))
    return state


def _ev_potion(state: Any, ev: PotionUsed) -> Any:
    return _put(state, _add_it(state.combats[ev.name], ev.actor, ev.seconds))


def _ev_ability(state: Any, ev: AbilityUsed) -> Any:
    cb = _add_it(state.combats[ev.name], ev.actor, ev.seconds)
    state, cb = _spend(state, cb, ev.actor, "Vol", "vol_spent", ev.cost)
    return _put(state, cb)


def _ev_align(state: Any, ev: AlignmentUsed) -> Any:
    cb = _add_it(state.combats[ev.name], ev.actor, ev.seconds)
    state, cb = _spend(state, cb, ev.actor, "alignment", "align_spent", ev.points)
    return _put(state, cb)


def _ev_reroll(state: Any, ev: Rerolled) -> Any:
    cb = state.combats[ev.name]
    f = cb.fighters[ev.character]
    last = msgspec.structs.replace(f.last_attack, hit=ev.swing.hit) if f.last_attack else None
    state, cb = _spend(state, _with_fighter(cb, ev.character, last_attack=last), ev.character, "chance", "rerolls", 1)
    return _put(state, cb)


def _ev_ended(state: Any, ev: CombatEnded) -> Any:
    cb = state.combats[ev.name]
    fighters = {k: msgspec.structs.replace(f, incantation=None) for k, f in cb.fighters.items()}
    return _put(state, msgspec.structs.replace(cb, active=False, it={k: 0 for k in cb.it}, fighters=fighters,
                                               clock=0, tie_it=None, tie_rolls={}))


_APPLY: dict[type, Any] = {
    CombatStarted: _ev_started, CombatJoined: _ev_joined, InitiativeRolled: _ev_initiative, TieBroken: _ev_tie,
    ActionTaken: _ev_action, TurnPassed: _ev_passed, AttackResolved: _ev_attack, SpellCast: _ev_cast,
    SpellReleased: _ev_released, Deconcentrated: _ev_deconcentrated, PvChanged: _ev_pv, PmSpent: _ev_pm,
    ConditionChanged: _ev_condition, Bled: _ev_bled, CrystalStored: _ev_stored,
    CrystalReleased: _ev_crystal_released, PotionUsed: _ev_potion, AbilityUsed: _ev_ability,
    AlignmentUsed: _ev_align, Rerolled: _ev_reroll, CombatEnded: _ev_ended,
}


def _apply(state: Any, ev: Any) -> Any:
    state = _APPLY[type(ev)](state, ev)
    cb = state.combats[ev.name]
    now = _now(cb)
    if cb.active and now is not None and now > cb.clock:
        state = _put(state, msgspec.structs.replace(cb, clock=now))
    return state


def evolve(state: Any, rec: Any) -> Any:
    """Fold one recorded combat event (pure)."""
    return _apply(state, rec.event)


# =========================================================================== summaries

def _swing_text(s: Swing) -> str:
    return f"{s.total} ({'touché, ' + str(s.damage) + ' dommages' if s.hit else 'manqué'})"


_SUMMARY: dict[type, Any] = {
    CombatStarted: lambda e: f"Combat « {e.name} » : " + ", ".join(f"{f.id} IT {f.it}" for f in e.fighters),
    CombatJoined: lambda e: f"{e.fighter.id} rejoint le combat « {e.name} » à IT {e.fighter.it}"
                            + (" (moyenne)" if e.averaged else ""),
    InitiativeRolled: lambda e: "Initiative : " + ", ".join(f"{r.id} {r.base_it} − ({r.die} + {r.ref}×2) = {r.it}"
                                                             for r in e.results),
    TieBroken: lambda e: f"Égalité à IT {e.it} : " + ", ".join(f"{k} {r.total}" for k, r in e.rolls.items())
                         + f" ; {e.winner} agit",
    ActionTaken: lambda e: f"{e.actor} : {e.what or e.action} (+{e.seconds})",
    TurnPassed: lambda e: f"{e.actor} passe son tour (+{e.seconds})",
    AttackResolved: lambda e: f"{e.attacker} attaque {e.target}"
                              + (f" ({e.weapon or e.projectile})" if e.weapon or e.projectile else "")
                              + f" : ATT {e.att} contre DP {e.dp}, " + ", ".join(_swing_text(s) for s in e.swings)
                              + f" (+{e.seconds})",
    SpellCast: lambda e: f"{e.caster} lance {e.spell} ({e.pm_cost} PM) : CNC {e.total} contre {e.spell_cnc}, "
                         + ("réussi" if e.success else "échoué") + f" (+{e.incantation})",
    SpellReleased: lambda e: f"{e.spell} de {e.caster} se libère : "
                             + (", ".join(f"{r.target} {r.damage} dommages" for r in e.results) or "sans cible")
                             + (f" (+{e.combustion})" if e.source == "spell" else ""),
    Deconcentrated: lambda e: f"{e.caster} est déconcentré ({e.damage} > {e.margin}) : {e.spell} est perdu",
    PvChanged: lambda e: f"{e.character} : {e.delta:+d} PV → {e.pv_after} ({e.cause})",
    PmSpent: lambda e: f"{e.character} dépense {e.pm} PM → {e.pm_after}",
    ConditionChanged: lambda e: f"{e.character} est {dict(conscious='conscient', unconscious='inconscient', dead='mort')[e.condition]} ({e.pv} PV)",
    Bled: lambda e: f"{e.character} perd {e.pv_lost} PV en {e.seconds} s d'inconscience → {e.pv_after}",
    CrystalStored: lambda e: f"{e.caster} enferme {e.spell} ({e.pm} PM) dans le cristal {e.crystal} : "
                             + dict(stored="emmagasiné", failed="échec", exploded="explosion " + e.explosion)[e.outcome]
                             + f" (+{e.seconds})",
    CrystalReleased: lambda e: f"{e.caster} libère le cristal {e.crystal} : "
                               + (e.spell if e.success else "échec") + f" (+{e.seconds})",
    PotionUsed: lambda e: f"{e.actor} : potion de {e.spell} ({e.trigger}) sur {e.target} (+{e.seconds})",
    AbilityUsed: lambda e: f"{e.actor} : {e.ability} ({e.cost} Vol*)" + (f" sur {e.target}" if e.target else "")
                           + f" (+{e.seconds})",
    AlignmentUsed: lambda e: f"{e.actor} {'soigne' if e.kind == 'heal' else 'blesse'} {e.target} de {e.points} PV"
                             f" (+{e.seconds})",
    Rerolled: lambda e: f"{e.character} utilise sa Chance contre {e.target} : {_swing_text(e.swing)}",
    CombatEnded: lambda e: f"Fin du combat « {e.name} » : IT remis à 0",
}


def summarize(rec: Any) -> str:
    return _SUMMARY[type(rec.event)](rec.event)


# =========================================================================== the part contract

EVENTS: tuple[type, ...] = tuple(_APPLY)
DECIDERS: dict[type, Any] = {
    StartCombat: decide_start, JoinCombat: decide_join, RollInitiative: decide_initiative, NextTurn: decide_next,
    TakeAction: decide_act, PassTurn: decide_pass, Attack: decide_attack, CastSpell: decide_cast,
    ReleaseSpell: decide_release, StoreInCrystal: decide_store, ReleaseCrystal: decide_release_crystal,
    UsePotion: decide_potion, UseAbility: decide_ability, UseAlignment: decide_align, Reroll: decide_reroll,
    EndCombat: decide_end,
}
EVOLVERS: dict[type, Any] = {cls: evolve for cls in EVENTS}
SUMMARIES: dict[type, Any] = {cls: summarize for cls in EVENTS}
COMPENSATORS: dict[type, Any] = {}


# =========================================================================== read side (pure)

#: events that are a row of the book's combat table (an actor acts and its IT moves)
TURN_EVENTS: dict[type, str] = {
    ActionTaken: "actor", TurnPassed: "actor", AttackResolved: "attacker", SpellCast: "caster",
    SpellReleased: "caster", CrystalStored: "caster", CrystalReleased: "caster", PotionUsed: "actor",
    AbilityUsed: "actor", AlignmentUsed: "actor",
}


def log_entry(before: Any, after: Any, ev: Any) -> dict[str, Any] | None:
    """One row of the book's table (L1298-L1311) for a turn event: actor, action, duration, every IT before/after."""
    field = TURN_EVENTS.get(type(ev))
    if field is None or (isinstance(ev, SpellReleased) and ev.source != "spell"):
        return None
    actor = getattr(ev, field)
    old, new = before.combats[ev.name], after.combats[ev.name]
    return {"combat": ev.name, "actor": actor, "action": _SUMMARY[type(ev)](ev),
            "duration": new.it[actor] - old.it.get(actor, new.it[actor]),
            "it_before": dict(old.it), "it_after": dict(new.it)}


def view(state: Any, name: str, mode: str = "round") -> dict[str, Any]:
    """The combat state: participants with IT, PV/PM, condition, incantation; who acts next."""
    cb = _combat(state, name)
    try:
        nxt: str | None = whose_turn(state, name, mode) if cb.active else None
        why = ""
    except RuleError as exc:
        nxt, why = None, str(exc)
    rows = []
    for f in sorted(cb.fighters.values(), key=lambda f: (cb.it[f.id], f.id)):
        nums = numbers(state, cb, f.id, mode)
        inc = f.incantation
        rows.append({"id": f.id, "it": cb.it[f.id], "pv": nums.get("PV"), "pm": nums.get("PM"),
                     "ref": _int(nums, "REF"), "condition": f.condition,
                     "incanting": inc.spell if inc else None, "until": inc.until if inc else None,
                     "next": f.id == nxt})
    return {"combat": name, "active": cb.active, "next": nxt, "waiting": why, "clock": cb.clock,
            "participants": rows}
