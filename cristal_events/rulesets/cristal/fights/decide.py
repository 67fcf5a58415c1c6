"""Combat decisions: the timeline (start, join, initiative, next, act, pass), attacks, abilities (pure)."""

from __future__ import annotations

from typing import Any

from ....dice import parse
from ....display import plain_id
from ....errors import DiceError, RuleError, UnknownEntity
from ....rolls import Roll
from ....rounding import RoundingMode
from ....ruleset import Context, Emit
from .. import alignment as al
from .. import combat as c
from ..content import ItemTemplate, RaceWeapon, did_you_mean, find_named
from ..stable import dmg as stable_dmg
from ..state import CristalState
from ..texts import _
from .common import (
    Scratch,
    active,
    check_stats,
    fighter,
    finish,
    hurt_target,
    int_or,
    item_named,
    need,
    numbers,
    pool_left,
    timeline,
    turn,
    valid_ties,
    voleur_check,
)
from .fold import apply
from .model import (
    AbilityUsed,
    ActionTaken,
    AlignmentUsed,
    Attack,
    AttackResolved,
    Combat,
    CombatEnded,
    CombatJoined,
    CombatStarted,
    EndCombat,
    FighterEntry,
    InitiativeResult,
    InitiativeRolled,
    JoinCombat,
    NextTurn,
    PassTurn,
    RollInitiative,
    StartCombat,
    Swing,
    TakeAction,
    TieBroken,
    TurnPassed,
    UseAbility,
    UseAlignment,
    content,
    stream,
)

# =========================================================================== decisions

def _level_it(cb: Combat) -> bool:
    """Two conscious combatants share the smallest IT (only then may REF and a die be needed)."""
    its = [cb.it[f.id] for f in cb.fighters.values() if f.condition == "conscious"]
    return len(its) > 1 and its.count(min(its)) > 1


def tie_first(decide: Any) -> Any:
    """A turn command whose faces begin with the tie-break: when the next actors are tied on IT and REF
    (L1202) and the faces were entered at the table (``--dice``), the first faces are the tie-break d6
    (one per tied combatant, in the fight's order, round after round while level); the tie is recorded,
    then the command is decided on the state it leaves. Engine dice still ask for 'combat next'."""

    def decide_after_tie(state: CristalState, cmd: Any, ctx: Context) -> list[Emit]:
        cb = state.combats.get(cmd.combat)
        if cb is None or not cb.active or ctx.faces is None or not _level_it(cb):
            return decide(state, cmd, ctx)
        tied = c.tied_for_dice(timeline(state, cb, ctx.mode))
        ties = valid_ties(cb)
        if not tied or all(t in ties for t in tied):
            return decide(state, cmd, ctx)
        broken = decide_next(state, NextTurn(combat=cmd.combat), ctx)
        after = state
        for e in broken:
            after = apply(after, e.event)
        return [*broken, *decide(after, cmd, ctx)]

    decide_after_tie.__name__ = decide.__name__
    decide_after_tie.__doc__ = decide.__doc__
    return decide_after_tie


def _entry(state: CristalState, fid: str, it: int, stats: dict[str, int | str]) -> FighterEntry:
    if not fid.strip():
        raise RuleError(_("A combatant needs an id."))
    plain_id(fid, "Combatant id")
    checked = check_stats(state, fid, stats)
    ch = state.characters.get(fid)
    if ch is not None and ch.dead:
        raise RuleError(_("{fid} is dead (L373) and cannot fight.").format(fid=fid))
    if fid not in state.characters and not checked:
        raise UnknownEntity(_("{fid} is neither a character of the campaign nor described with --stat {fid}:KEY=N.").format(fid=fid))
    return FighterEntry(id=fid, it=it, stats=checked)


def decide_start(state: CristalState, cmd: StartCombat, ctx: Context) -> list[Emit]:
    if not cmd.combat.strip():
        raise RuleError(_("A combat needs a name."))
    plain_id(cmd.combat, "Combat name")
    old = state.combats.get(cmd.combat)
    if old is not None and old.active:
        raise RuleError(_("The combat {combat!r} is already going on.").format(combat=cmd.combat))
    if not cmd.fighters:
        raise RuleError(_("A combat needs at least one combatant (--with ID)."))
    if len(set(cmd.fighters)) != len(cmd.fighters):
        raise RuleError(_("A combatant is named twice in --with."))
    stray = sorted((set(cmd.its) | set(cmd.stats)) - set(cmd.fighters))
    if stray:
        raise RuleError(_("{stray} is given an IT or numbers but is not in --with.").format(stray=stray[0]))
    entries = [_entry(state, fid, cmd.its.get(fid, 0), cmd.stats.get(fid, {})) for fid in cmd.fighters]
    return [Emit(stream(cmd.combat), CombatStarted(name=cmd.combat, fighters=entries))]


def decide_join(state: CristalState, cmd: JoinCombat, ctx: Context) -> list[Emit]:
    cb = active(state, cmd.combat)
    if cmd.fighter in cb.fighters:
        raise RuleError(_("{fighter} is already in the combat {combat!r}.").format(fighter=cmd.fighter, combat=cmd.combat))
    its = [cb.it[f.id] for f in cb.fighters.values() if f.condition == "conscious"]
    it = cmd.it if cmd.it is not None else c.newcomer_it(its, ctx.mode)
    ev = CombatJoined(name=cmd.combat, fighter=_entry(state, cmd.fighter, it, dict(cmd.stats)),
                      averaged=cmd.it is None)
    return finish(state, cmd.combat, [ev], ctx.mode)


def decide_initiative(state: CristalState, cmd: RollInitiative, ctx: Context) -> list[Emit]:
    cb = active(state, cmd.combat)
    if cb.actions:
        raise RuleError(_("Initiative is rolled only once, at the very start of the combat (L1315)."))
    ids = list(cmd.fighters) or list(cb.fighters)
    dice = ctx.dice()
    results: list[InitiativeResult] = []
    for fid in ids:
        f = fighter(cb, fid)
        if f.initiative or fid in [r.id for r in results]:
            raise RuleError(_("{fid} has already rolled initiative in this combat.").format(fid=fid))
        ini = c.roll_initiative(dice, int_or(numbers(state, cb, fid, ctx.mode).REF), cb.it[fid])
        assert ini.roll is not None
        results.append(InitiativeResult(id=fid, base_it=ini.base_it, ref=ini.ref, die=ini.die, it=ini.it,
                                        roll=ini.roll))
    return [Emit(stream(cmd.combat), InitiativeRolled(name=cmd.combat, results=results))]


def decide_next(state: CristalState, cmd: NextTurn, ctx: Context) -> list[Emit]:
    cb = active(state, cmd.combat)
    line = timeline(state, cb, ctx.mode)
    tied = c.tied_for_dice(line)
    ties = valid_ties(cb)
    if not tied or all(t in ties for t in tied):
        c.next_actor(line, ties)  # "No combatant is able to act." when all are down
        return []
    rounds = c.roll_tie_break(ctx.dice(), tied)
    winner = c.tie_winner(rounds)
    return [Emit(stream(cmd.combat), TieBroken(name=cmd.combat, it=cb.it[tied[0]], rounds=rounds, winner=winner))]


def decide_act(state: CristalState, cmd: TakeAction, ctx: Context) -> list[Emit]:
    cb = active(state, cmd.combat)
    turn(state, cb, cmd.actor, ctx.mode)
    given = (cmd.seconds is not None) + bool(cmd.action) + (cmd.move_m is not None)
    if given != 1:
        raise RuleError(_("Give the action's duration in seconds, a key of the duration table, or a move in metres: one of them."))
    rolls: list[Roll] = []
    if cmd.move_m is not None:
        seconds, label = _move_seconds(state, cb, cmd, cmd.move_m, ctx.mode)
    elif cmd.action:
        d = c.action_duration(cmd.action, ctx.dice() if isinstance(c.action(cmd.action).duration, str) else None,
                              times=cmd.times)
        seconds, rolls, label = d.seconds, list(d.rolls), c.action(cmd.action).label
    else:
        if cmd.seconds is None or cmd.seconds < 0:
            raise RuleError(_("An action cannot last {seconds} seconds.").format(seconds=cmd.seconds))
        seconds, label = cmd.seconds, ""
    if cmd.aid:
        target = fighter(cb, cmd.aid)
        if target.condition != "unconscious":
            raise RuleError(_("{aid} is {target_condition}; only an unconscious character can be helped.").format(aid=cmd.aid, target_condition=target.condition))
    ev = ActionTaken(name=cmd.combat, actor=cmd.actor, what=cmd.what or label, seconds=seconds, action=cmd.action,
                     rolls=rolls, aided=cmd.aid)
    return finish(state, cmd.combat, [ev], ctx.mode)


def _move_seconds(state: CristalState, cb: Combat, cmd: TakeAction, move_m: float, mode: RoundingMode) -> tuple[int, str]:
    """A move at the race's cruise or top speed: t = 3.6 × d / v (L1286-L1290, D11)."""
    race_name = numbers(state, cb, cmd.actor, mode).race
    if not isinstance(race_name, str) or not race_name:
        raise RuleError(_("{actor} has no race, so no speed; give the move's duration with --duration.").format(actor=cmd.actor))
    race = content(state).race(race_name)
    modes = {m.mode.lower(): m for m in race.movement}
    if not modes:
        raise RuleError(_("The race {race} has no movement mode; give the move's duration with --duration.").format(race=race.name))
    move = modes.get(cmd.movement.lower()) if cmd.movement else race.movement[0]
    if move is None:
        raise RuleError(_("The race {race} cannot move by {movement!r}; its modes: {values}.").format(race=race.name, movement=cmd.movement, values=', '.join(m.mode for m in race.movement)))
    kmh = move.cruise_kmh if cmd.pace == "cruise" else move.top_kmh
    pace = "vitesse de croisière" if cmd.pace == "cruise" else "vitesse de pointe"
    return c.travel_seconds(move_m, kmh, mode), f"{move.mode} {move_m:g} m ({pace}, {kmh:g} km/h)"


def decide_pass(state: CristalState, cmd: PassTurn, ctx: Context) -> list[Emit]:
    cb = active(state, cmd.combat)
    turn(state, cb, cmd.actor, ctx.mode)
    line = c.pass_turn(timeline(state, cb, ctx.mode), cmd.actor, tie_rolls=valid_ties(cb))
    new_it = next(x.it for x in line if x.name == cmd.actor)
    ev = TurnPassed(name=cmd.combat, actor=cmd.actor, seconds=new_it - cb.it[cmd.actor])
    return finish(state, cmd.combat, [ev], ctx.mode)


def _arms(state: CristalState, fid: str, weapon: ItemTemplate | None, projectile: ItemTemplate | None,
          shots: int = 1) -> tuple[ItemTemplate | None, ItemTemplate | None]:
    """A character attacks with what it carries: the weapon equipped (L877), a projectile per shot in its bag."""
    ch = state.characters.get(fid)
    if ch is None:
        return weapon, projectile
    carried = {i.name.casefold(): i for i in ch.items}
    if weapon is not None:
        own = carried.get(weapon.name.casefold())
        if own is None or not own.equipped:
            raise RuleError(_("{weapon} must be equipped by {fid} to attack with it (L877).").format(weapon=weapon.name, fid=fid))
        weapon = own.template
    if projectile is not None:
        own = carried.get(projectile.name.casefold())
        if own is None or own.qty < shots:
            left = 0 if own is None else own.qty
            raise RuleError(_("{fid} has {left} {projectile} left and the attack needs {shots}.").format(fid=fid, left=left, projectile=projectile.name, shots=shots))
        projectile = own.template
    return weapon, projectile


def _race_weapons(state: CristalState, race: str | None) -> list[RaceWeapon]:
    if not isinstance(race, str) or not race:
        return []
    return [w for w in content(state).race(race).weapons if w.kind == "Naturelle"]


def _natural_name(w: RaceWeapon | None) -> str:
    return "" if w is None else (w.name or w.description)


def _race_it(state: CristalState, race: str | None) -> int | None:
    """The IT of the race's natural attack when its section gives one (L1263), else None (6 s)."""
    return next((w.it for w in _race_weapons(state, race) if w.it is not None), None)


def _is_dice(expr: str) -> bool:
    try:
        parse(expr)
    except DiceError:
        return False
    return True


def _natural(state: CristalState, cb: Combat, cmd: Attack, race: str | None, armed: bool) -> RaceWeapon | None:
    """The natural weapon ``--natural`` names (L463-L469), still recovering or not (L469)."""
    if not cmd.natural:
        return None
    if armed:
        raise RuleError(_("A natural weapon is the body's: give --natural without --weapon or --projectile."))
    weapons = _race_weapons(state, race)
    if not weapons:
        raise RuleError(_("{actor} has no race with natural weapons; give its race (--stat {actor}:race=...).").format(actor=cmd.actor))
    found = find_named(weapons, cmd.natural, _natural_name)
    if found is None:
        names = [_natural_name(w) for w in weapons]
        raise UnknownEntity(_("Unknown natural weapon {natural!r};{did_you_mean} {race}'s: {names}.").format(natural=cmd.natural, did_you_mean=did_you_mean(cmd.natural, names), race=race, names=', '.join(names)))
    ready = cb.fighters[cmd.actor].recovering.get(_natural_name(found))
    if ready is not None and cb.it[cmd.actor] < ready:
        raise RuleError(_("{actor}'s {natural_name} is recovering until IT {ready} ({found_recovery_s} s after its use, L469).").format(actor=cmd.actor, natural_name=_natural_name(found), ready=ready, found_recovery_s=found.recovery_s))
    return found


def _shots(ctx: Context, chain: bool) -> int:
    """The attacks (and projectiles) of one attack: 1, or the campaign's ``chain_attacks`` (L1363, D14)."""
    if not chain:
        return 1
    if ctx.settings.chain_attacks < 2:
        raise RuleError(_("Chained attacks are turned off in this campaign (setting chain_attacks)."))
    return int(ctx.settings.chain_attacks)


def _carried(state: CristalState, fid: str, name: str) -> ItemTemplate | None:
    """An item an attack names: the one the character carries under that name, whatever its origin
    (its own "Excalibur", L837), else the content pack's."""
    if not name:
        return None
    ch = state.characters.get(fid)
    own = find_named(ch.items, name, lambda i: i.name) if ch is not None else None
    return own.template if own is not None else item_named(state, name)


def decide_attack(state: CristalState, cmd: Attack, ctx: Context) -> list[Emit]:
    mode = ctx.mode
    cb = active(state, cmd.combat)
    sc = Scratch(state, cb, mode)  # the decision's numbers: each combatant's built once
    f = turn(state, cb, cmd.actor, mode, nums=sc.nums)
    target = fighter(cb, cmd.target)
    if target.condition == "dead":
        raise RuleError(_("{target} is dead and can no longer be attacked.").format(target=cmd.target))
    if cmd.target == cmd.actor:
        raise RuleError(_("A combatant cannot attack itself."))
    a, t = sc.nums(cmd.actor), sc.nums(cmd.target)
    weapon, projectile = _carried(state, cmd.actor, cmd.weapon), _carried(state, cmd.actor, cmd.projectile)
    if weapon is not None and weapon.kind == "thrown" and projectile is None:
        # a dagger thrown from the hand is a projectile: no FRC bonus, and it is gone once thrown (L1340-L1352)
        weapon, projectile = None, weapon
    weapon, projectile = _arms(state, cmd.actor, weapon, projectile, _shots(ctx, cmd.chain))
    propulsor = weapon if weapon is not None and weapon.kind == "propulsor" else None
    if propulsor is not None and projectile is None:
        raise RuleError(_("{propulsor} needs a projectile (--projectile).").format(propulsor=propulsor.name))
    ranged = projectile is not None or (weapon is not None and weapon.kind == "thrown")
    penalty = 0
    if cmd.distance is not None:
        if not ranged:
            raise RuleError(_("A melee attack has no range; --distance needs --projectile or a thrown weapon."))
        reach = propulsor.range_m if propulsor is not None else None
        penalty = c.range_penalty(cmd.distance, frc=int_or(a.FRC) if reach is None else None, propulsor_range_m=reach)
    dp = need(t.DP, cmd.target, "DP")
    align_pen = al.penalty(al.reaction(int_or(a.ALIGN), int_or(t.ALIGN)), ctx.settings.alignment_beyond_20)
    frc = {"FRC": int_or(a.FRC)}
    natural = _natural(state, cb, cmd, a.race, weapon is not None or projectile is not None)
    ready_at = None
    if weapon is None and projectile is None:
        # the attacker's own ATT and DMG (its main weapon, or the GM's numbers); bare-handed, the IT of
        # the race's natural attack, else 6 (L1263)
        att, weapon_att = need(a.ATT, cmd.actor, "ATT"), 0
        dmg = a.DMG if a.DMG is not None else stable_dmg(frc, None, mode)[0]
        own_it = a.IT
        if natural is not None:
            dmg = natural.dmg if natural.dmg and _is_dice(natural.dmg) else dmg
            own_it = natural.it
            if natural.recovery_s:
                ready_at = cb.it[cmd.actor] + natural.recovery_s
        elif own_it is None and "IT" not in f.stats:
            own_it = _race_it(state, a.race)
        seconds = c.attack_duration(own_it)
    else:
        att = a.ATT0 if a.ATT0 is not None and "ATT" not in f.stats else need(a.ATT, cmd.actor, "ATT")
        weapon_att = sum(i.att for i in (weapon, projectile) if i is not None)
        if projectile is not None:  # no FRC bonus for projectiles; the propulsor's DMG bonus adds (L1340, L1346)
            extra = propulsor.dmg if propulsor is not None and propulsor.dmg.strip() not in ("", "0") else ""
            dmg = projectile.dmg + (f"+{extra}" if extra else "")
            p_it = propulsor.it if propulsor is not None else None
            seconds = c.attack_duration(projectile.it, p_it) if projectile.it is not None else c.attack_duration(p_it)
        else:
            assert weapon is not None
            dmg = stable_dmg(frc, weapon, mode)[0]
            seconds = c.attack_duration(weapon.it)
    vol = voleur_check(state, a, f, "Attaque de dos") if cmd.back else 0
    dice = ctx.dice()
    if cmd.chain:
        checks = list(c.roll_chained_attack(dice, att, dp, mode, weapon_att=weapon_att, range_penalty=penalty,
                                            alignment_penalty=align_pen, attacks=_shots(ctx, True)))
    else:
        checks = [c.roll_attack(dice, att, dp, weapon_att=weapon_att, range_penalty=penalty,
                                alignment_penalty=align_pen)]
    swings = []
    for chk in checks:
        dmg_amount, dmg_roll = 0, None
        if chk.hit and sc.cond_of(cmd.target) != "dead":
            hit = c.roll_damage(dice, dmg, mode, backstab=cmd.back)
            dmg_amount, dmg_roll = hit.amount, hit.roll
            hurt_target(sc, dice, cmd.target, dmg_amount, f"attaque de {cmd.actor}", mode, ctx.settings)
        swings.append(Swing(die=chk.die, total=chk.total, hit=chk.hit, roll=chk.roll, damage=dmg_amount,
                            damage_roll=dmg_roll))
    ev = AttackResolved(name=cmd.combat, attacker=cmd.actor, target=cmd.target, att=checks[0].att, dp=dp,
                        swings=swings, seconds=seconds, weapon=weapon.name if weapon else "",
                        projectile=projectile.name if projectile else "", distance=cmd.distance,
                        range_penalty=penalty, alignment_penalty=align_pen, chain=cmd.chain, back=cmd.back,
                        vol_spent=vol, dmg=dmg,
                        projectiles_used=len(swings) if projectile is not None and cmd.actor in state.characters
                        else 0, natural=_natural_name(natural), ready_at=ready_at)
    return finish(state, cmd.combat, [ev, *sc.events], mode)


def decide_ability(state: CristalState, cmd: UseAbility, ctx: Context) -> list[Emit]:
    cb = active(state, cmd.combat)
    f = turn(state, cb, cmd.actor, ctx.mode)
    if cmd.seconds < 0:
        raise RuleError(_("An action cannot last {seconds} seconds.").format(seconds=cmd.seconds))
    if cmd.target:
        fighter(cb, cmd.target)
    from ..progression import ability as find

    name = find(content(state).class_def("Voleur"), cmd.ability).name
    if name == "Attaque de dos":
        raise RuleError(_("Attaque de dos is an attack: use 'combat attack ... --back'."))
    cost = voleur_check(state, numbers(state, cb, cmd.actor, ctx.mode), f, name)
    ev = AbilityUsed(name=cmd.combat, actor=cmd.actor, ability=name, cost=cost, seconds=cmd.seconds,
                     target=cmd.target)
    return finish(state, cmd.combat, [ev], ctx.mode)


def decide_align(state: CristalState, cmd: UseAlignment, ctx: Context) -> list[Emit]:
    mode = ctx.mode
    cb = active(state, cmd.combat)
    sc = Scratch(state, cb, mode)  # the decision's numbers: each combatant's built once
    f = turn(state, cb, cmd.actor, mode, nums=sc.nums)
    target = fighter(cb, cmd.target)
    if target.condition == "dead":
        raise RuleError(_("{target} is dead; the alignment pool cannot reach it.").format(target=cmd.target))
    a, t = sc.nums(cmd.actor), sc.nums(cmd.target)
    align = int_or(a.ALIGN)
    if (align > 0) != (cmd.kind == "heal") and align != 0:
        raise RuleError(_("{actor} is {value} and can only {value2} (L1417).").format(actor=cmd.actor, value='blessed' if align > 0 else 'cursed', value2='heal' if align > 0 else 'harm'))
    pv_max = int_or(t.PVmax, sc.pv_of(cmd.target)) if ctx.settings.alignment_heal_caps_at_pvmax else 10**9
    use = al.use_pool(align, cmd.points, pool_left(state, a, f, "alignment"), sc.pv_of(cmd.target), pv_max)
    ev = AlignmentUsed(name=cmd.combat, actor=cmd.actor, target=cmd.target, kind=cmd.kind, points=cmd.points,
                       seconds=use.it_seconds, remaining=use.remaining)
    sc.change(cmd.target, use.pv_after - sc.pv_of(cmd.target), f"alignement de {cmd.actor}",
              cap=pv_max if cmd.kind == "heal" else None)
    return finish(state, cmd.combat, [ev, *sc.events], mode)


def decide_end(state: CristalState, cmd: EndCombat, ctx: Context) -> list[Emit]:
    active(state, cmd.combat)
    return [Emit(stream(cmd.combat), CombatEnded(name=cmd.combat))]

