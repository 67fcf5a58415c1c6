"""Combat decisions: commands validated against the state, turned into events (pure)."""

from __future__ import annotations

from typing import Any


from ....dice import Dice, parse
from ....errors import DiceError, RuleError, UnknownEntity
from ....events import Event
from ....rolls import Roll
from ....ruleset import Context, Emit
from .. import alignment as al
from .. import characters
from .. import combat as c
from .. import magic as m
from ..content import ItemTemplate, SpellDef, race_for_sex
from ..stable import dmg as stable_dmg
from ..stable import stable_states
from .model import AbilityUsed, ActionTaken, AlignmentUsed, Attack, AttackResolved, Bled, CastSpell, Combat, CombatEnded, CombatJoined, CombatStarted, ConditionChanged, CrystalReleased, CrystalStored, Deconcentrated, EffectResult, EndCombat, Fighter, FighterEntry, InitiativeResult, InitiativeRolled, JoinCombat, NextTurn, PassTurn, PmSpent, PotionUsed, PvChanged, ReleaseCrystal, ReleaseSpell, Reroll, Rerolled, RollInitiative, STAT_KEYS, SpellCast, SpellReleased, StartCombat, StoreInCrystal, Swing, TakeAction, TargetResult, TieBroken, TurnPassed, UseAbility, UseAlignment, UsePotion, content, stream  # noqa: F401
from .fold import _apply  # noqa: F401
from .model import _now  # noqa: F401


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
    from ..progression import check_ability

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
    from ..progression import ability as find

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

