"""Chance rerolls in a fight (L56-L58): the last roll of a combatant redone (pure).

"Tous les types de jet de dés sont sujets à cette règle de rebrassage (calcule d'attaque, de dommage,
de concentration, etc.)" (L56). The roll redone is the combatant's last one in the fight (``Fighter.
last_roll``, kept by the folds): an attack d20, a damage roll, a concentration d20 or the initiative
d6, a table action's duration, a spell's effects, a tie-break d6, a crystal's explosion (L1093) or
a crystal spell's d20 (Verrou, Vision, Fermeture, Libération Cristalline, L1099-L1135).
The new roll replaces the old ("en ignorant le résultat actuel", L58); both stay in the log. A
positive Chance is the player's |Chance| rerolls a day; a negative one lets the GM order as many
(``gm=True``, D16). Each reroll spends one of the day (``pools_used["chance"]``).
"""

from __future__ import annotations

from typing import Any

from ....errors import RuleError
from ....events import Event
from ....rolls import Roll
from ....ruleset import Context, Emit
from .. import combat as c
from .. import crystals as cr
from .. import magic as m
from ..state import CristalState
from ..texts import N_, _
from .common import (
    Scratch,
    active,
    deconcentrate,
    fighter,
    finish,
    hurt_target,
    int_or,
    numbers,
    pool_left,
)
from .crystal_spells import seen, seen_shown
from .model import (
    Combat,
    LastRoll,
    Reroll,
    Rerolled,
    RerolledBy,
    RollRedone,
    SpellReleased,
    Swing,
    TieBroken,
    content,
)
from .spells import apply_effects, crystal_spell, effect_spends, time_of

REDONE = ("attack", "damage", "concentration", "initiative", "duration", "effects", "tie-break", "explosion",
          "crystal")


def decide_reroll(state: CristalState, cmd: Reroll, ctx: Context) -> list[Emit]:
    cb = active(state, cmd.combat)
    f = fighter(cb, cmd.actor)
    if not ctx.settings.chance_enabled:
        raise RuleError(_("The Chance rule is turned off in this campaign (setting chance_enabled)."))
    nums = numbers(state, cb, cmd.actor, ctx.mode)
    chance = int_or(nums.CHANCE)
    if cmd.gm and chance >= 0:
        raise RuleError(_("{actor} has Chance {chance}; the GM orders rerolls only for a negative Chance (L58).").format(actor=cmd.actor, chance=chance))
    if not cmd.gm and chance < 0:
        raise RuleError(_("{actor} has Chance {chance}; only the GM decides when its dice are rerolled (L58).").format(actor=cmd.actor, chance=chance))
    left = pool_left(state, nums, f, "chance")
    if left < 1:
        raise RuleError(_("{actor} has no Chance reroll left today (L56).").format(actor=cmd.actor))
    last = f.last_roll
    if last is None:
        raise RuleError(_("{actor} has made no roll in this combat.").format(actor=cmd.actor))
    if last.kind not in REDONE or (last.kind == "crystal" and not last.spell):
        raise RuleError(_("{actor}'s last roll is a crystal spell's roll logged without its concentration total; Chance cannot redo it, the GM corrects it.").format(actor=cmd.actor))
    if last.kind == "initiative" and cb.actions:
        raise RuleError(_("The fight has begun; an initiative roll can no longer be redone (L1315)."))
    if last.kind != "initiative" and cb.it[cmd.actor] != last.it_after:
        raise RuleError(_("{actor} has acted since that roll; Chance redoes a roll before acting again.").format(actor=cmd.actor))
    by: RerolledBy = "gm" if cmd.gm else "player"
    if last.roll is not None:
        ctx.dice().replacing(last.roll)  # the reroll's first roll names the one it replaces (issue 21 item 3)
    return _REDO[last.kind](state, cb, cmd, ctx, last, left - 1, by)


def _redo_attack(state: CristalState, cb: Combat, cmd: Reroll, ctx: Context, last: LastRoll, left: int,
                 by: RerolledBy) -> list[Emit]:
    """A new d20 for the last attack (halved for a chained one); the damage dice if it now hits."""
    mode = ctx.mode
    if cb.fighters[last.target].condition == "dead":
        raise RuleError(_("{last_target} is dead and can no longer be attacked.").format(last_target=last.target))
    dice = ctx.dice()
    roll = dice.roll("1d20", purpose="chance reroll")
    total = c.rounding.divide(last.att + roll.total, last.split, mode) if last.halved else last.att + roll.total
    hit = total > last.dp
    sc = Scratch(state, cb, mode)
    dmg_amount, dmg_roll = 0, None
    if hit:
        dealt = c.roll_damage(dice, last.dmg, mode, backstab=last.backstab)
        dmg_amount, dmg_roll = dealt.amount, dealt.roll
        hurt_target(sc, dice, last.target, dmg_amount, f"attaque de {cmd.actor} (Chance)", mode, ctx.settings)
    swing = Swing(die=roll.total, total=total, hit=hit, roll=roll, damage=dmg_amount, damage_roll=dmg_roll)
    ev = Rerolled(name=cmd.combat, character=cmd.actor, target=last.target, swing=swing, left=left,
                  by=by, old=last.roll)
    return finish(state, cmd.combat, [ev, *sc.events], mode)


def _redo_damage(state: CristalState, cb: Combat, cmd: Reroll, ctx: Context, last: LastRoll, left: int,
                 by: RerolledBy) -> list[Emit]:
    """New DMG dice: the target's PV move by the difference; more damage may deconcentrate it (L972)."""
    mode = ctx.mode
    if cb.fighters[last.target].condition == "dead":
        raise RuleError(_("{last_target} is dead; the damage that struck it can no longer be redone.").format(last_target=last.target))
    dice = ctx.dice()
    dealt = c.roll_damage(dice, last.dmg, mode, backstab=last.backstab)
    assert dealt.roll is not None
    sc = Scratch(state, cb, mode)
    sc.change(last.target, last.amount - dealt.amount, f"dommages de {cmd.actor} rebrassés (Chance)")
    if dealt.amount > last.amount:
        deconcentrate(sc, dice, last.target, dealt.amount, ctx.settings)
    ev = RollRedone(name=cmd.combat, character=cmd.actor, kind="damage", roll=dealt.roll, left=left, by=by,
                    old=last.roll, target=last.target, damage_before=last.amount,
                    damage=dealt.amount)
    return finish(state, cmd.combat, [ev, *sc.events], mode)


def _redo_concentration(state: CristalState, cb: Combat, cmd: Reroll, ctx: Context, last: LastRoll, left: int,
                        by: RerolledBy) -> list[Emit]:
    """A new d20 for the cast: the PM stay paid; an incantation starts or stops; an INSTANTANÉ or SIMULTANÉ
    spell that now succeeds goes off at once (its effect dice follow)."""
    mode = ctx.mode
    dice = ctx.dice()
    roll = dice.roll("1d20", purpose="chance reroll")
    total = last.cnc + last.penalty + roll.total
    success = total >= last.spell_cnc
    ev = RollRedone(name=cmd.combat, character=cmd.actor, kind="concentration", roll=roll, left=left, by=by,
                    old=last.roll, spell=last.spell, total=total, margin=total - last.spell_cnc,
                    success=success)
    events: list[Event] = [ev]
    sc = Scratch(state, cb, mode)
    if success and last.time != "incantation":
        spell = content(state).spell(last.spell)
        targets = [t for t in last.targets if cb.fighters[t].condition != "dead"]
        results = apply_effects(sc, dice, cmd.actor, spell.name, effect_spends(spell, last.spends), targets,
                                 dict(last.lowered_dm), mode)
        events.append(SpellReleased(name=cmd.combat, caster=cmd.actor, spell=spell.name, results=results,
                                    combustion=last.combustion))
    return finish(state, cmd.combat, [*events, *sc.events], mode)


def _redo_initiative(state: CristalState, cb: Combat, cmd: Reroll, ctx: Context, last: LastRoll, left: int,
                     by: RerolledBy) -> list[Emit]:
    """A new d6: IT = base IT - ([1d6] + REF x 2) again (L1319)."""
    ini = c.roll_initiative(ctx.dice(), last.ref, last.base_it)
    assert ini.roll is not None
    ev = RollRedone(name=cmd.combat, character=cmd.actor, kind="initiative", roll=ini.roll, left=left, by=by,
                    old=last.roll, total=ini.it, it_before=cb.it[cmd.actor], it_after=ini.it)
    return finish(state, cmd.combat, [ev], ctx.mode)


def _redo_duration(state: CristalState, cb: Combat, cmd: Reroll, ctx: Context, last: LastRoll, left: int,
                   by: RerolledBy) -> list[Emit]:
    """New duration dice (a table action "[1d4]", L1225-L1258): the roller's IT moves by the difference."""
    assert last.roll is not None
    dice = ctx.dice()
    rolls = [dice.roll(last.roll.expr, purpose="chance reroll") for _ in range(last.times)]
    seconds = sum(max(r.total, 0) for r in rolls)
    before = cb.it[cmd.actor]
    ev = RollRedone(name=cmd.combat, character=cmd.actor, kind="duration", roll=rolls[0], rolls=rolls, left=left,
                    by=by, old=last.roll, total=seconds, it_before=before,
                    it_after=before - last.amount + seconds)
    return finish(state, cmd.combat, [ev], ctx.mode)


def _redo_effects(state: CristalState, cb: Combat, cmd: Reroll, ctx: Context, last: LastRoll, left: int,
                  by: RerolledBy) -> list[Emit]:
    """New effect dice of the spell just released (its Dommage ...): each target's PV move by the
    difference; more damage may deconcentrate a target that incants (L972)."""
    if not last.spell or not last.spends:
        raise RuleError(_("{actor}'s last spell effects cannot be rolled again (their spends are not known).").format(actor=cmd.actor))
    mode = ctx.mode
    spell = content(state).spell(last.spell)
    targets = [t for t in last.targets if t in cb.fighters]
    dead = [t for t in targets if cb.fighters[t].condition == "dead" and last.dealt.get(t)]
    if dead:
        raise RuleError(_("{dead} is dead; the spell that struck it can no longer be rolled again.").format(dead=dead[0]))
    dice = ctx.dice()
    sc = Scratch(state, cb, mode)
    results = apply_effects(sc, dice, cmd.actor, spell.name, effect_spends(spell, last.spends), targets,
                             dict(last.lowered_dm), mode, hurt=False)
    rolled = [e.roll for r in results for e in r.effects if e.roll is not None]
    if not rolled:
        raise RuleError(_("The effects of {spell} rolled no dice; there is nothing to roll again.").format(spell=spell.name))
    for r in results:
        before = last.dealt.get(r.target, 0)
        if cb.fighters[r.target].condition != "dead":
            sc.change(r.target, before - r.damage, f"{spell.name} de {cmd.actor} rebrassé (Chance)")
            if r.damage > before:
                deconcentrate(sc, dice, r.target, r.damage, ctx.settings)
    ev = RollRedone(name=cmd.combat, character=cmd.actor, kind="effects", roll=rolled[0], left=left, by=by,
                    old=last.roll, spell=spell.name, results=results,
                    damage_before=sum(last.dealt.values()), damage=sum(r.damage for r in results))
    return finish(state, cmd.combat, [ev, *sc.events], mode)


def _redo_tie(state: CristalState, cb: Combat, cmd: Reroll, ctx: Context, last: LastRoll, left: int,
              by: RerolledBy) -> list[Emit]:
    """A new d6 for the roller's die of the tie-break's last round (L1202); level again at the top, those
    level roll further rounds. Only before any of the tied combatants has acted."""
    rounds = [dict(r) for r in cb.tie_rounds]
    if not rounds or cmd.actor not in rounds[-1] or cb.tie_it is None:
        raise RuleError(_("{actor}'s tie-break die is no longer the one that decides; it cannot be redone.").format(actor=cmd.actor))
    if any(cb.it.get(fid) != cb.tie_it for fid in rounds[0]):
        raise RuleError(_("A combatant of the tie has acted since; the tie-break can no longer be redone."))
    dice = ctx.dice()
    roll = dice.roll("1d6", purpose="chance reroll")
    old = rounds[-1][cmd.actor]
    rounds[-1][cmd.actor] = roll
    best = max(r.total for r in rounds[-1].values())
    level = [n for n, r in rounds[-1].items() if r.total == best]
    if len(level) > 1:
        rounds.extend(c.roll_tie_break(dice, level))
    redone = RollRedone(name=cmd.combat, character=cmd.actor, kind="tie-break", roll=roll, left=left, by=by,
                        old=old, total=roll.total)
    tie = TieBroken(name=cmd.combat, it=cb.tie_it, rounds=rounds, winner=c.tie_winner(rounds))
    return finish(state, cmd.combat, [redone, tie], ctx.mode)


def _redo_explosion(state: CristalState, cb: Combat, cmd: Reroll, ctx: Context, last: LastRoll, left: int,
                    by: RerolledBy) -> list[Emit]:
    """New dice for an over-capacity blast ([1d4] per PM, L1093): its one total hit the caster and everyone
    within 6 m, so each one still alive has its PV moved by the difference (no DP nor DM)."""
    mode = ctx.mode
    roll = ctx.dice().roll(last.dmg, purpose="chance reroll")
    sc = Scratch(state, cb, mode)
    for fid in last.targets:
        if fid in cb.fighters and cb.fighters[fid].condition != "dead":
            sc.change(fid, last.amount - roll.total, f"explosion du cristal {last.crystal} rebrassée (Chance)")
    ev = RollRedone(name=cmd.combat, character=cmd.actor, kind="explosion", roll=roll, left=left, by=by,
                    old=last.roll, crystal=last.crystal, targets=list(last.targets), damage_before=last.amount,
                    damage=roll.total, total=roll.total)
    return finish(state, cmd.combat, [ev, *sc.events], mode)


def _redo_crystal(state: CristalState, cb: Combat, cmd: Reroll, ctx: Context, last: LastRoll, left: int,
                  by: RerolledBy) -> list[Emit]:
    """A new d20 for Verrou or Vision Cristalline (L1119-L1135): the PM stay paid; the action lasts the
    Temps and the combustion on a success, the Temps alone on a failure, so the IT moves by the difference;
    Verrou now locks the crystal or not; Vision now shows what it holds or nothing."""
    if last.spell in _CLOSE_OPEN:
        return _CLOSE_OPEN[last.spell](state, cb, cmd, ctx, last, left, by)
    spell = crystal_spell(state, last.spell)
    roll = ctx.dice().roll("1d20", purpose="chance reroll")
    total = last.cnc + roll.total
    success = total >= spell.cnc
    seconds = m.spell_durations(time_of(spell, ""), spell.cnc, ctx.mode, success=success).total
    before = cb.it[cmd.actor]
    shown = ""
    crystal = state.crystals.get(last.crystal)
    if crystal is None or crystal.destroyed:
        raise RuleError(_("The crystal {last_crystal!r} is gone; its {spell} can no longer be rolled again.").format(last_crystal=last.crystal, spell=spell.name))
    if last.spell == "verrou_cristallin" and success and not last.success:
        cr.lock_crystal(crystal, cmd.actor)  # it must still hold a spell and be unlocked (L1129)
    if last.spell == "vision_cristalline" and success:
        stored = crystal.stored
        shown = seen(crystal.locked_by is not None, stored.name if stored else "", stored.pm if stored else 0,
                     {s.effect.name: s.pm for s in stored.spends} if stored else {})
    ev = RollRedone(name=cmd.combat, character=cmd.actor, kind="crystal", roll=roll, left=left, by=by,
                    old=last.roll, spell=spell.name, crystal=last.crystal, total=seconds, margin=total - spell.cnc,
                    success=success, it_before=before, it_after=before - last.amount + seconds,
                    seen=shown)
    return finish(state, cmd.combat, [ev], ctx.mode)


def _redo_fermeture(state: CristalState, cb: Combat, cmd: Reroll, ctx: Context, last: LastRoll, left: int,
                    by: RerolledBy) -> list[Emit]:
    """A new d20 for Fermeture Cristalline (L1077, L1115): the PM stay paid; both spells must succeed, so the
    spell is now stored or not, and a spell above the crystal's capacity now explodes it (L1093: [1d4] per
    PM to the caster and those within 6 m, rolled here). The action lasts the stored spell's Temps, plus
    its combustion when both succeed: the IT moves by the difference."""
    mode = ctx.mode
    ferm = crystal_spell(state, "fermeture_cristalline")
    held = state.crystals.get(last.crystal)
    assert last.stored is not None
    if held is None or held.destroyed:
        raise RuleError(_("The crystal {last_crystal!r} is gone; its Fermeture Cristalline can no longer be rolled again.").format(last_crystal=last.crystal))
    if held.stored is not None and (held.stored.name != last.stored.name or not last.success):
        raise RuleError(_("The crystal {last_crystal!r} holds {held_stored} since; its Fermeture Cristalline can no longer be rolled again.").format(last_crystal=last.crystal, held_stored=held.stored.name))
    dice = ctx.dice()
    roll = dice.roll("1d20", purpose="chance reroll")
    total = last.cnc + roll.total
    success = total >= ferm.cnc
    result = cr.store_in_crystal(cr.Crystal(capacity=last.capacity), last.stored, spell_success=last.spell_ok,
                                 fermeture_success=success)
    spell = content(state).spell(last.stored.name)
    seconds = m.spell_durations(time_of(spell, last.time), spell.cnc, mode,
                                success=last.spell_ok and success).total
    before = cb.it[cmd.actor]
    sc = Scratch(state, cb, mode)
    blast, hit = None, []
    if result.outcome == "exploded" and result.explosion is not None:
        blast = cr.roll_explosion(dice, result.explosion).roll
        assert blast is not None
        hit = [t for t in last.targets if t in cb.fighters and cb.fighters[t].condition != "dead"]
        for fid in hit:  # L1093: one total to everyone within 6 m, no DP nor DM
            sc.change(fid, -blast.total, f"explosion du cristal {last.crystal} (Fermeture rebrassée, Chance)")
    ev = RollRedone(name=cmd.combat, character=cmd.actor, kind="crystal", roll=roll, left=left, by=by,
                    old=last.roll, spell=ferm.name, crystal=last.crystal, total=seconds, margin=total - ferm.cnc,
                    success=success, it_before=before, it_after=before - last.amount + seconds,
                    outcome=result.outcome, blast=blast, targets=hit,
                    damage=blast.total if blast else 0)
    return finish(state, cmd.combat, [ev, *sc.events], mode)


def _redo_liberation(state: CristalState, cb: Combat, cmd: Reroll, ctx: Context, last: LastRoll, left: int,
                     by: RerolledBy) -> list[Emit]:
    """A new d20 for Libération Cristalline (L1099-L1105): the PM stay paid. A failure now keeps the spell in
    the crystal (its targets get back the PV its release took); a success now sets the stored spell off on
    the targets named at the release, with its own effect dice (no CNC nor PM for it, L1105)."""
    mode = ctx.mode
    lib = crystal_spell(state, "liberation_cristalline")
    held = state.crystals.get(last.crystal)
    stored = last.stored
    if held is None or held.destroyed or stored is None:
        raise RuleError(_("The crystal {last_crystal!r} is gone; its Libération Cristalline can no longer be rolled again.").format(last_crystal=last.crystal))
    if (held.stored is not None) == last.success:
        raise RuleError(_("The crystal {last_crystal!r} has changed since; its Libération Cristalline can no longer be rolled again.").format(last_crystal=last.crystal))
    dice = ctx.dice()
    roll = dice.roll("1d20", purpose="chance reroll")
    total = last.cnc + roll.total
    success = total >= lib.cnc
    seconds = m.spell_durations(time_of(lib, ""), lib.cnc, mode, success=success).total
    before = cb.it[cmd.actor]
    sc = Scratch(state, cb, mode)
    after: list[Event] = []
    if last.success and not success:  # the release is undone: what it dealt comes back
        for tid, dealt in last.dealt.items():
            if dealt and tid in cb.fighters and cb.fighters[tid].condition != "dead":
                sc.change(tid, dealt, f"{stored.name} du cristal {last.crystal} non libéré (Chance)")
    elif success and not last.success:
        targets = [t for t in last.targets if t in cb.fighters and cb.fighters[t].condition != "dead"]
        results = apply_effects(sc, dice, cmd.actor, stored.name, list(stored.spends), targets,
                                 dict(last.lowered_dm), mode)
        after.append(SpellReleased(name=cmd.combat, caster=cmd.actor, spell=stored.name, results=results,
                                   combustion=0, source="crystal"))
    ev = RollRedone(name=cmd.combat, character=cmd.actor, kind="crystal", roll=roll, left=left, by=by,
                    old=last.roll, spell=lib.name, crystal=last.crystal, total=seconds, margin=total - lib.cnc,
                    success=success, it_before=before, it_after=before - last.amount + seconds,
                    released=stored.name if success else "", targets=list(last.targets),
                    damage_before=sum(last.dealt.values()))
    return finish(state, cmd.combat, [ev, *after, *sc.events], mode)


_CLOSE_OPEN: dict[str, Any] = {"fermeture_cristalline": _redo_fermeture, "liberation_cristalline": _redo_liberation}


_REDO: dict[str, Any] = {"attack": _redo_attack, "damage": _redo_damage, "concentration": _redo_concentration,
                         "initiative": _redo_initiative, "duration": _redo_duration, "effects": _redo_effects,
                         "tie-break": _redo_tie, "explosion": _redo_explosion,
                         "crystal": _redo_crystal}


def _faces(roll: Roll | None) -> str:
    return "?" if roll is None else str(roll.total)


def _crystal_text(e: RollRedone) -> str:
    text = (_("{spell} on the crystal {crystal}: success") if e.success
            else _("{spell} on the crystal {crystal}: failure")).format(spell=e.spell, crystal=e.crystal)
    text += f", {seen_shown(e.seen)}" if e.seen else ""
    text += _(_OUTCOME[e.outcome]) if e.outcome in _OUTCOME else ""
    if e.blast:
        text += _(", {total} damage to {targets}").format(total=e.blast.total, targets=", ".join(e.targets))
    if e.released:
        text += _(", {spell} released").format(spell=e.released)
    return text + _(": IT {before} → {after}").format(before=e.it_before, after=e.it_after)


#: what each kind of reroll redid, in the reader's language
_REDONE_TEXT: dict[str, Any] = {
    "damage": lambda e: _("damage {before} → {after} against {target}").format(
        before=e.damage_before, after=e.damage, target=e.target),
    "concentration": lambda e: (_("concentration of {spell}: {total}, success") if e.success
                                else _("concentration of {spell}: {total}, failure")).format(spell=e.spell,
                                                                                          total=e.total),
    "initiative": lambda e: _("initiative: IT {before} → {after}").format(before=e.it_before, after=e.it_after),
    "duration": lambda e: _("duration {total} s: IT {before} → {after}").format(total=e.total, before=e.it_before,
                                                                              after=e.it_after),
    "effects": lambda e: _("effects of {spell}: damage {before} → {after}").format(
        spell=e.spell, before=e.damage_before, after=e.damage),
    "tie-break": lambda e: _("tie-break die {total}").format(total=e.total),
    "crystal": _crystal_text,
    "explosion": lambda e: _("explosion of the crystal {crystal}: {before} → {after} to {targets}").format(
        crystal=e.crystal, before=e.damage_before, after=e.damage, targets=", ".join(e.targets)),
}


_OUTCOME: dict[str, str] = {"stored": N_(", spell stored"), "failed": N_(", nothing stored"),
                            "exploded": N_(", the crystal explodes")}


def summarize_redone(rec: Any) -> str:
    """One line for ``combat.roll_redone`` in the reader's language (the other combat summaries are in ``views``)."""
    e: RollRedone = rec.event
    text = (_("{character}: the GM has the roll redone ({old} → {new}), {redone}; {left} reroll(s) left")
            if e.by == "gm" else
            _("{character} uses their Chance ({old} → {new}), {redone}; {left} reroll(s) left"))
    return text.format(character=e.character, old=_faces(e.old), new=_faces(e.roll), redone=_REDONE_TEXT[e.kind](e),
                       left=e.left)
