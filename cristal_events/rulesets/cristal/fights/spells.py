"""Combat decisions for magic: cast, release, crystals (Fermeture, Libération, Verrou, Vision), potions (pure)."""

from __future__ import annotations

from typing import Any

import msgspec

from ....dice import Dice
from ....errors import RuleError, UnknownEntity
from ....events import Event
from ....rounding import RoundingMode
from ....ruleset import Context, Emit
from .. import alignment as al
from .. import combat as c
from .. import crystals as cr
from .. import magic as m
from ..content import SpellDef
from ..state import CristalState
from ..texts import _
from .common import CombatNumbers, Scratch, active, fighter, finish, hurt_target, int_or, need, turn
from .model import (
    CastSpell,
    CrystalReleased,
    CrystalStored,
    EffectResult,
    PmSpent,
    PotionUsed,
    ReleaseCrystal,
    ReleaseSpell,
    SpellCast,
    SpellReleased,
    StoreInCrystal,
    TargetResult,
    UsePotion,
    content,
)


def require_known(state: CristalState, caster: str, spell_name: str) -> None:
    """A campaign character casts only the spells it learned (L935 "le mage doit connaître la formule",
    L954, L1042 step 1); an extra's numbers are the GM's, so its spells are too."""
    ch = state.characters.get(caster)
    if ch is not None and spell_name not in ch.spells:
        raise RuleError(_('{ch} does not know {spell_name} (L954): learn it first with \'cristal xp buy spell {ch_id} "{spell_name}"\'.').format(ch=ch.name, spell_name=spell_name, ch_id=ch.id))


def _spell_effects(spell: SpellDef) -> dict[str, m.VariableEffect]:
    return {e.name.casefold(): m.VariableEffect(name=e.name, scale=e.scale, unit=e.unit, reduction=e.reduction)
            for e in spell.effects}


def effect_spends(spell: SpellDef, given: dict[str, int]) -> list[m.EffectSpend]:
    known = _spell_effects(spell)
    out = []
    for key, pm in given.items():
        eff = known.get(key.casefold())
        if eff is None:
            raise UnknownEntity(_("{spell} has no effect {key!r}; its effects: {value}.").format(spell=spell.name, key=key, value=', '.join(e.name for e in spell.effects) or 'none'))
        out.append(m.EffectSpend(effect=eff, pm=pm))
    missing = [e.name for e in spell.effects if e.name.casefold() not in {k.casefold() for k in given}]
    if missing:
        raise RuleError(_("{spell} needs PM in every variable effect (L993); missing: {missing}.").format(spell=spell.name, missing=', '.join(missing)))
    return out


def apply_effects(sc: Scratch, dice: Dice, caster: str, spell_name: str, spends: list[m.EffectSpend],
                   targets: list[str], lowered: dict[str, int], mode: RoundingMode, *, hurt: bool = True) -> list[TargetResult]:
    """Effects per target after its DM (L1024-L1036); DMG effects hurt, each target rolls its own dice
    (``hurt=False``: the results only, for a Chance reroll that moves the PV by the difference)."""
    results = []
    for tid in targets:
        nums = sc.nums(tid)
        dm = int_or(nums.DM)
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
        if damage and hurt:
            hurt_target(sc, dice, tid, damage, f"{spell_name} de {caster}", mode)
    return results


def time_of(spell: SpellDef, override: str, remembered: str = "") -> m.SpellTime:
    """The spell's Temps: the one given now, else the book's, else the one given the last time the
    spell was cast in this campaign (``CristalState.spell_times``)."""
    raw: Any = override or spell.time
    if raw is None or raw == "":
        raw = remembered
    if raw is None or raw == "":
        raise RuleError(_("The Temps of {spell} is not printed; give it with --time SECONDS or INSTANTANÉ (it is then remembered for the next casts).").format(spell=spell.name))
    if isinstance(raw, str) and raw.strip().lstrip("-").isdigit():
        raw = int(raw)
    return m.parse_spell_time(raw)


def pay(sc: Scratch, caster: str, nums: CombatNumbers, base_pm: int, spell_cnc: int,
         spends: list[m.EffectSpend], dice: Dice, ctx: Context, penalties: list[str], align_pen: int,
         pm_max: int | None) -> m.CastResult:
    pm = need(nums.PM, caster, "PM")
    return m.cast_spell(caster_pm=pm, caster_cnc=need(nums.CNC, caster, "CNC"), base_pm=base_pm, spell_cnc=spell_cnc,
                        spends=spends, dice=dice, pm_max=pm_max, situations=penalties, alignment_penalty=align_pen,
                        allow_overdraw=ctx.settings.pm_overdraw, magic_capable=nums.PMrace != 0)


def _worst_alignment(nums: CombatNumbers, sc: Scratch, targets: list[str], beyond_20: str = "half") -> int:
    pens = [al.penalty(al.reaction(int_or(nums.ALIGN), int_or(sc.nums(t).ALIGN)), beyond_20) for t in targets]
    return min(pens, default=0)


def _combustion_on_success(spell: SpellDef, time: m.SpellTime, mode: RoundingMode, accompanying: int | None) -> int:
    """The combustion a successful cast pays (L1271, D23), kept for a Chance reroll of a failed roll."""
    if time.kind == "simultane":
        return accompanying or 0
    if spell.combustion is not None:
        return spell.combustion
    return m.spell_durations(time, spell.cnc, mode).combustion


def decide_cast(state: CristalState, cmd: CastSpell, ctx: Context) -> list[Emit]:
    mode = ctx.mode
    cb = active(state, cmd.combat)
    sc = Scratch(state, cb, mode)  # the decision's numbers: each combatant's built once
    turn(state, cb, cmd.actor, mode, nums=sc.nums)
    spell = content(state).spell(cmd.spell)
    require_known(state, cmd.actor, spell.name)
    for tid in cmd.targets:
        if fighter(cb, tid).condition == "dead":
            raise RuleError(_("{tid} is dead; a spell cannot target it.").format(tid=tid))
    stray = sorted(set(cmd.lowered_dm) - set(cmd.targets))
    if stray:
        raise RuleError(_("{stray} lowers its DM but is not a target of the spell.").format(stray=stray[0]))
    spends = effect_spends(spell, dict(cmd.effects))
    time = time_of(spell, cmd.time, state.spell_times.get(spell.name, ""))
    if time.kind == "simultane" and cmd.accompanying is None:
        raise RuleError(_("{spell} is SIMULTANÉ: give the duration of the accompanying action (--with-action S).").format(spell=spell.name))
    nums = sc.nums(cmd.actor)
    dice = ctx.dice()
    res = pay(sc, cmd.actor, nums, spell.pm_base, spell.cnc, spends, dice, ctx, list(cmd.penalties),
               _worst_alignment(nums, sc, list(cmd.targets), ctx.settings.alignment_beyond_20), spell.pm_max)
    chk = res.concentration
    dur = m.spell_durations(time, spell.cnc, mode, success=chk.success, accompanying_seconds=cmd.accompanying)
    if spell.combustion is not None and chk.success and time.kind != "simultane":
        dur = m.SpellDurations(incantation=dur.incantation, combustion=spell.combustion)
    on_success = _combustion_on_success(spell, time, mode, cmd.accompanying)
    cast = SpellCast(name=cmd.combat, caster=cmd.actor, spell=spell.name, spends={s.effect.name: s.pm for s in spends},
                     targets=list(cmd.targets), pm_cost=res.pm_cost, pm_before=res.pm_before, pm_after=res.pm_after,
                     overdraw_pv=res.pv_damage, cnc=chk.cnc, penalty=chk.penalty, die=chk.die, total=chk.total,
                     spell_cnc=chk.spell_cnc, success=chk.success, margin=chk.margin, time=time.kind,
                     incantation=dur.incantation, combustion=dur.combustion, roll=chk.roll,
                     penalties=list(cmd.penalties), lowered_dm=dict(cmd.lowered_dm),
                     combustion_on_success=on_success)
    sc.events.append(PmSpent(name=cmd.combat, character=cmd.actor, pm=res.pm_before - res.pm_after,
                             pm_after=res.pm_after))
    sc.change(cmd.actor, -res.pv_damage, f"{spell.name} : PM puisés sous 0")
    head: list[Event] = [cast]
    if chk.success and dur.incantation == 0 and sc.cond_of(cmd.actor) == "conscious":
        results = apply_effects(sc, dice, cmd.actor, spell.name, spends, list(cmd.targets), dict(cmd.lowered_dm), mode)
        head.append(SpellReleased(name=cmd.combat, caster=cmd.actor, spell=spell.name, results=results,
                                  combustion=dur.combustion))
    return finish(state, cmd.combat, [*head, *sc.events], mode)


def decide_release(state: CristalState, cmd: ReleaseSpell, ctx: Context) -> list[Emit]:
    mode = ctx.mode
    cb = active(state, cmd.combat)
    sc = Scratch(state, cb, mode)  # the decision's numbers: each combatant's built once
    f = turn(state, cb, cmd.actor, mode, releasing=True, nums=sc.nums)
    inc = f.incantation
    if inc is None:
        raise RuleError(_("{actor} is not incanting any spell.").format(actor=cmd.actor))
    spell = content(state).spell(inc.spell)
    spends = [s for s in effect_spends(spell, inc.spends)]
    targets = [t for t in inc.targets if cb.fighters[t].condition != "dead"]
    results = apply_effects(sc, ctx.dice(), cmd.actor, spell.name, spends, targets, dict(inc.lowered_dm), mode)
    ev = SpellReleased(name=cmd.combat, caster=cmd.actor, spell=spell.name, results=results, combustion=inc.combustion)
    return finish(state, cmd.combat, [ev, *sc.events], mode)


def crystal_spell(state: CristalState, key: str) -> SpellDef:
    return content(state).spell(cr.crystal_spell(key).name)


def _carried_crystal(state: CristalState, actor: str, name: str) -> int | None:
    """The PM max of the Cristal Magique ``name`` the character ``actor`` carries (L919), if any."""
    ch = state.characters.get(actor)
    for item in ch.items if ch is not None else ():
        if item.name.casefold() == name.casefold() and item.template.crystal_pm is not None:
            return item.template.crystal_pm
    return None


def _blast_zone(cb: Any, actor: str, within: list[str]) -> list[str]:
    """Who an over-capacity explosion hits (L1093, radius 6 m): the caster, then every combatant named
    within the radius (in that order, each once); a dead one takes nothing more."""
    out = [actor]
    for fid in within:
        f = fighter(cb, fid)
        if fid not in out and f.condition != "dead":
            out.append(fid)
    return out


def decide_store(state: CristalState, cmd: StoreInCrystal, ctx: Context) -> list[Emit]:
    mode = ctx.mode
    cb = active(state, cmd.combat)
    sc = Scratch(state, cb, mode)  # the decision's numbers: each combatant's built once
    turn(state, cb, cmd.actor, mode, nums=sc.nums)
    crystals = getattr(state, "crystals", {})
    crystal = crystals.get(cmd.crystal)
    if crystal is None:
        carried = _carried_crystal(state, cmd.actor, cmd.crystal)
        capacity = cmd.capacity if cmd.capacity is not None else carried
        if capacity is None:
            raise RuleError(_("The crystal {crystal!r} is new: give its capacity in PM (--capacity N).").format(crystal=cmd.crystal))
        if carried is not None and capacity != carried:
            raise RuleError(_("The crystal {crystal!r} holds {carried} PM, not {capacity}.").format(crystal=cmd.crystal, carried=carried, capacity=capacity))
        crystal = cr.Crystal(capacity=capacity)
    elif cmd.capacity is not None and cmd.capacity != crystal.capacity:
        raise RuleError(_("The crystal {crystal!r} holds {crystal_capacity} PM, not {capacity}.").format(crystal=cmd.crystal, crystal_capacity=crystal.capacity, capacity=cmd.capacity))
    if crystal.destroyed:
        raise RuleError(_("The crystal {crystal!r} was destroyed by an explosion.").format(crystal=cmd.crystal))
    if crystal.stored is not None:
        raise RuleError(_("The crystal {crystal!r} already holds {crystal_stored}; release it first.").format(crystal=cmd.crystal, crystal_stored=crystal.stored.name))
    spell = content(state).spell(cmd.spell)
    require_known(state, cmd.actor, spell.name)
    require_known(state, cmd.actor, crystal_spell(state, "fermeture_cristalline").name)  # L1077: both spells
    for fid in cmd.within:
        fighter(cb, fid)  # L1093: a combatant within the blast's 6 m
    spends = effect_spends(spell, dict(cmd.effects))
    time = time_of(spell, cmd.time, state.spell_times.get(spell.name, ""))
    nums = sc.nums(cmd.actor)
    dice = ctx.dice()
    first = pay(sc, cmd.actor, nums, spell.pm_base, spell.cnc, spends, dice, ctx, list(cmd.penalties), 0,
                 spell.pm_max)
    ferm = crystal_spell(state, "fermeture_cristalline")
    ferm_pm = cr.fermeture_pm(first.pm_cost)
    nums2 = msgspec.structs.replace(nums, PM=first.pm_after)
    second = pay(sc, cmd.actor, nums2, ferm_pm, ferm.cnc, [], dice, ctx, list(cmd.penalties), 0, None)
    stored = cr.StoredSpell(name=spell.name, pm=first.pm_cost, spends=tuple(spends))
    result = cr.store_in_crystal(crystal, stored, spell_success=first.success, fermeture_success=second.success)
    # Fermeture is SIMULTANÉ: its combustion is the stored spell's cast (D23); a failure pays the incantation only
    dur = m.spell_durations(time, spell.cnc, mode, success=first.success and second.success)
    explosion, blast = "", None
    if result.outcome == "exploded" and result.explosion is not None:
        blast = cr.roll_explosion(dice, result.explosion)
        explosion = result.explosion.expr
    pm_after = second.pm_after
    overdraw = first.pv_damage + second.pv_damage
    zone = _blast_zone(cb, cmd.actor, list(cmd.within)) if blast is not None and blast.roll is not None else []
    ev = CrystalStored(name=cmd.combat, caster=cmd.actor, crystal=cmd.crystal, capacity=crystal.capacity,
                       spell=spell.name, spends=list(spends), pm=first.pm_cost,
                       fermeture_pm=ferm_pm, outcome=result.outcome, spell_roll=first.concentration.roll,
                       fermeture_roll=second.concentration.roll, spell_success=first.success,
                       fermeture_success=second.success, explosion=explosion,
                       explosion_roll=blast.roll if blast else None, seconds=dur.total,
                       pm_cost=first.pm_cost + ferm_pm, pm_after=pm_after, overdraw_pv=overdraw, hit=zone,
                       fermeture_cnc=second.concentration.total,
                       time=cmd.time or state.spell_times.get(spell.name, ""),
                       zone=_blast_zone(cb, cmd.actor, list(cmd.within)))
    sc.events.append(PmSpent(name=cmd.combat, character=cmd.actor, pm=need(nums.PM, cmd.actor, "PM") - pm_after, pm_after=pm_after))
    sc.change(cmd.actor, -overdraw, "Fermeture Cristalline : PM puisés sous 0")
    if blast is not None and blast.roll is not None:
        # L1093: one total hits everyone within 6 m, no DP nor DM: the caster and those the GM names
        for fid in zone:
            sc.change(fid, -blast.roll.total, f"explosion du cristal {cmd.crystal}")
    return finish(state, cmd.combat, [ev, *sc.events], mode)


def decide_release_crystal(state: CristalState, cmd: ReleaseCrystal, ctx: Context) -> list[Emit]:
    mode = ctx.mode
    cb = active(state, cmd.combat)
    sc = Scratch(state, cb, mode)  # the decision's numbers: each combatant's built once
    turn(state, cb, cmd.actor, mode, nums=sc.nums)
    crystal = getattr(state, "crystals", {}).get(cmd.crystal)
    if crystal is None:
        raise UnknownEntity(_("There is no crystal named {crystal!r}.").format(crystal=cmd.crystal))
    _released, stored = cr.release_crystal(crystal, cmd.actor)
    for tid in cmd.targets:
        if fighter(cb, tid).condition == "dead":
            raise RuleError(_("{tid} is dead; a spell cannot target it.").format(tid=tid))
    lib = crystal_spell(state, "liberation_cristalline")
    require_known(state, cmd.actor, lib.name)
    nums = sc.nums(cmd.actor)
    dice = ctx.dice()
    res = pay(sc, cmd.actor, nums, lib.pm_base, lib.cnc, [], dice, ctx, list(cmd.penalties), 0, None)
    dur = m.spell_durations(time_of(lib, ""), lib.cnc, mode, success=res.success)
    ev = CrystalReleased(name=cmd.combat, caster=cmd.actor, crystal=cmd.crystal, success=res.success,
                         roll=res.concentration.roll, pm_cost=res.pm_cost, pm_after=res.pm_after, seconds=dur.total,
                         spell=stored.name if res.success else "", overdraw_pv=res.pv_damage,
                         cnc_total=res.concentration.total, targets=list(cmd.targets),
                         lowered_dm=dict(cmd.lowered_dm))
    sc.events.append(PmSpent(name=cmd.combat, character=cmd.actor, pm=res.pm_before - res.pm_after,
                             pm_after=res.pm_after))
    sc.change(cmd.actor, -res.pv_damage, "Libération Cristalline : PM puisés sous 0")
    head: list[Event] = [ev]
    if res.success:
        results = apply_effects(sc, dice, cmd.actor, stored.name, list(stored.spends), list(cmd.targets),
                                 dict(cmd.lowered_dm), mode)
        head.append(SpellReleased(name=cmd.combat, caster=cmd.actor, spell=stored.name, results=results,
                                  combustion=0, source="crystal"))
    return finish(state, cmd.combat, [*head, *sc.events], mode)


def carried_potion(state: CristalState, actor: str, name: str) -> Any:
    """The potion ``name`` the character ``actor`` carries (an item holding a spell, L1179)."""
    ch = state.characters.get(actor)
    if ch is None:
        raise RuleError(_("{actor} has no sheet to carry a potion; describe the potion's spell instead.").format(actor=actor))
    for i in ch.items:
        if i.name.casefold() == name.strip().casefold():
            if i.template.potion is None:
                raise RuleError(_("{i} is not a potion.").format(i=i.name))
            return i
    raise UnknownEntity(_("{ch} carries no potion '{name}'.").format(ch=ch.name, name=name))


def fresh_potion(item: Any, day: int | None, fade_days: int) -> None:
    """Refuse a potion whose spell has faded: "finit par se dissiper avec le temps (en moyenne 2 mois)"
    (L1182), ``fade_days`` in-game days after the day it was made (setting ``potion_fade_days``; 0: never)."""
    brewed = item.template.potion.brewed_day
    if fade_days <= 0 or brewed is None:
        return
    if day is None:
        raise RuleError(_("{item} was made on day {brewed}: give today's in-game day (--day N) to check it has not faded (L1182).").format(item=item.name, brewed=brewed))
    if day - brewed > fade_days:
        raise RuleError(_("{item}, made on day {brewed}, has faded by day {day} ({fade_days} days, L1182): its spell is gone; drop it with 'item drop'.").format(item=item.name, brewed=brewed, day=day, fade_days=fade_days))


def decide_potion(state: CristalState, cmd: UsePotion, ctx: Context) -> list[Emit]:
    mode = ctx.mode
    cb = active(state, cmd.combat)
    sc = Scratch(state, cb, mode)  # the decision's numbers: each combatant's built once
    turn(state, cb, cmd.actor, mode, nums=sc.nums)
    item, trigger, spell_name, given = "", cmd.trigger, cmd.spell, dict(cmd.effects)
    if cmd.item:
        carried = carried_potion(state, cmd.actor, cmd.item)
        fresh_potion(carried, cmd.day, ctx.settings.potion_fade_days)
        assert carried.template.potion is not None
        item, trigger = carried.name, carried.template.potion.trigger
        spell_name, given = carried.template.potion.spell, dict(carried.template.potion.spends)
    spell = content(state).spell(spell_name)
    spends = effect_spends(spell, given)
    potion = cr.make_potion(cr.StoredSpell(name=spell.name, pm=m.spell_pm_cost(spell.pm_base, spends),
                                         spends=tuple(spends)), trigger)
    target = cmd.target or cmd.actor
    if fighter(cb, target).condition == "dead":
        raise RuleError(_("{target} is dead; a potion cannot act on it.").format(target=target))
    released = cr.trigger_potion(potion, trigger, target)
    assert released is not None
    if cmd.seconds is not None:
        seconds = cmd.seconds
    else:
        seconds = c.action_duration("boire_potion" if trigger == "ingestion" else "lancer_item").seconds
    ev = PotionUsed(name=cmd.combat, actor=cmd.actor, spell=spell.name, pm=potion.spell.pm, trigger=trigger,
                    target=target, seconds=seconds, item=item)
    results = apply_effects(sc, ctx.dice(), cmd.actor, spell.name, spends, [target], {}, mode)
    rel = SpellReleased(name=cmd.combat, caster=cmd.actor, spell=spell.name, results=results, combustion=0,
                        source="potion")
    return finish(state, cmd.combat, [ev, rel, *sc.events], mode)

