"""The turn economy (I-L241-265) and the fight decisions (pure; dice through ``ctx.dice()``)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Literal

import msgspec

from cristal_events.display import plain_id
from cristal_events.errors import RuleError
from cristal_events.rolls import Roll
from cristal_events.ruleset import Context, Emit

from .. import alcohol, checks, combat, gear, magic, spellbook
from ..locations import nonhumanoid_zone
from ..state import (ActiveSpell, Fight, Hero, IllerganState, Turn, content_of, fight_stream, find,
                    find_fight, plain, stat, stream_of)

from .model import ActionTaken, Attack, AttackResolved, CastSpell, DefenceUsed, Defend, DestinyPointSpent, EndFight, FightEnded, FightStarted, InitiativeEntry, InitiativeRolled, RollInitiative, SecondaryCast, SpellCast, SpendDestiny, StartFight, TakeAction, _acuity


# ============================================================================ the turn economy
def turn_of(fight: Fight, character: str, settings: Any) -> Turn:
    """The combatant's turn as it stands when he acts: with ``defence_window=own_turn_to_turn`` (A34) his
    defences come back at his first action of a new turn."""
    t = fight.turns.get(character, Turn())
    if settings.defence_window == "own_turn_to_turn" and t.defences_turn != fight.turn:
        t = msgspec.structs.replace(t, defences=combat.DefenceBudget(), defences_turn=fight.turn)
    return t


def _acts(fight: Fight, hero: Hero) -> None:
    if fight.turn and hero.id not in fight.acting:
        raise RuleError(f"{hero.name} scored 50 or less at initiative and cannot act this turn (I-L7).")


def spend(fight: Fight, hero: Hero, slot: combat.Slot, settings: Any, *, spell: str | None = None) -> Turn:
    """The combatant's turn after one action of ``slot``; refused when the budget has none left."""
    _acts(fight, hero)
    t = turn_of(fight, hero.id, settings)
    try:
        budget = combat.use(t.budget, slot, spell=spell)
    except RuleError as err:
        raise RuleError(f"{hero.name}: {err}") from None
    return msgspec.structs.replace(t, budget=budget)


def sacrifice(t: Turn, slot: Literal["major", "minor"], pd: str = "") -> Turn:
    """Give up this turn's action if unused, else the next turn's (I-L552, I-L605, I-L416)."""
    budget, owed = combat.sacrifice(t.budget, slot)
    changes: dict[str, Any] = {"budget": budget}
    if owed:
        changes[f"owed_{slot}"] = getattr(t, f"owed_{slot}") + 1
    if pd:
        key = "owed_pds" if owed else "pds"
        if pd in getattr(t, key):
            raise RuleError(f"The divine power {pd} is already used in that turn (I-L605).")
        changes[key] = (*getattr(t, key), pd)
    return msgspec.structs.replace(t, **changes)


def defend(fight: Fight, hero: Hero, kind: combat.Defence, *, against_magic: bool = False) -> Turn:
    """The defender's turn after a defence: one block, one magic defence and one parry or dodge (I-L543)."""
    t = fight.turns.get(hero.id, Turn())  # A34: the window runs until his own next action
    try:
        left = combat.use_defence(t.defences, kind, against_magic=against_magic)
    except RuleError as err:
        raise RuleError(f"{hero.name}: {err}") from None
    return msgspec.structs.replace(t, defences=left)


def _new_turns(fight: Fight, settings: Any) -> dict[str, Turn]:
    out = {}
    for c in fight.participants:
        t = fight.turns.get(c, Turn())
        fresh = settings.defence_window == "round"
        out[c] = Turn(budget=combat.new_turn(t.owed_major, t.owed_minor), pds=t.owed_pds,
                      defences=combat.DefenceBudget() if fresh else t.defences,
                      defences_turn=fight.turn + 1 if fresh else t.defences_turn)
    return out


# ============================================================================ decisions
def decide_start(state: IllerganState, cmd: StartFight, ctx: Context) -> list[Emit]:
    if not cmd.fight.strip() or ":" in cmd.fight:
        raise RuleError(f"A fight needs a name without a colon, not {cmd.fight!r}.")
    plain_id(cmd.fight, "Fight name")
    if cmd.fight in state.fights and not state.fights[cmd.fight].ended:
        raise RuleError(f"The fight '{cmd.fight}' is already under way.")
    if len(set(cmd.participants)) < 2:
        raise RuleError("A fight needs at least two different participants.")
    for c in cmd.participants:
        if find(state, c).dead:
            raise RuleError(f"{c} is dead and cannot fight.")
    return [Emit(fight_stream(cmd.fight), FightStarted(fight=cmd.fight, participants=list(cmd.participants)))]


def decide_initiative(state: IllerganState, cmd: RollInitiative, ctx: Context) -> list[Emit]:
    fight = find_fight(state, cmd.fight)
    for c in cmd.maluses:
        if c not in fight.participants:
            raise RuleError(f"{c} does not take part in the fight '{fight.name}'.")
    if not ctx.settings.initiative_reroll_each_turn and fight.turn >= 1:
        if cmd.maluses:
            raise RuleError("The initiative is kept from the first turn (initiative_reroll_each_turn=false); "
                            "no new malus applies (I-L4-7, A1).")
        order = [c for c in fight.order if not state.characters[c].dead]
        return [Emit(fight_stream(fight.name), InitiativeRolled(fight=fight.name, turn=fight.turn + 1, entries=[],
                                                                order=order, turns=_new_turns(fight, ctx.settings),
                                                                kept=True))]
    dice = ctx.dice()
    entries, results = [], []
    for c in fight.participants:
        hero = state.characters[c]
        if hero.dead:
            continue
        dex, vol, malus = stat(hero, "Dex"), stat(hero, "Vol"), cmd.maluses.get(c, 0)
        combat.initiative_score(dex, vol, 1, malus)  # the malus is checked before rolling
        ini = combat.roll_initiative(dice, c, dex, vol, malus)
        results.append(ini)
        entries.append(InitiativeEntry(character=c, dex=dex, vol=vol, malus=malus, score=ini.score, acts=ini.acts,
                                       roll=ini.roll))
    order = [e.name for e in combat.initiative_order(results, settings=ctx.settings)]
    ev = InitiativeRolled(fight=fight.name, turn=fight.turn + 1, entries=entries, order=order,
                          turns=_new_turns(fight, ctx.settings))
    return [Emit(fight_stream(fight.name), ev)]


def _zone(face: int, target: Hero, content: Any, settings: Any, *, critical: bool) -> tuple[str, int]:
    if target.body is not None:
        zone, index = nonhumanoid_zone(face, target.body, content, settings)
        return ("choix" if critical and zone == "aucune" else zone), index
    zone = combat.critical_zone(face, content) if critical else combat.humanoid_zone(face, content)
    return zone, 0


def _weapon(attacker: Hero, name: str | None, content: Any) -> Any:
    chosen = attacker.weapon if name is None else (name or None)
    return content.entry("weapons", chosen) if chosen else None


def decide_attack(state: IllerganState, cmd: Attack, ctx: Context) -> list[Emit]:
    fight = find_fight(state, cmd.fight)
    for c in (cmd.attacker, cmd.target):
        if c not in fight.participants:
            raise RuleError(f"{c} does not take part in the fight '{fight.name}'.")
    a, t = find(state, cmd.attacker), find(state, cmd.target)
    if a.dead or t.dead:
        raise RuleError(f"{(a if a.dead else t).name} is dead.")
    content, settings = content_of(state), ctx.settings
    turn_after = spend(fight, a, cmd.action, settings)
    defence_fields = _defence(state, fight, cmd, turn_after)
    weapon = _weapon(a, cmd.weapon, content)
    maluses = []
    plate = gear.cuirasse(a)
    if plate:  # the Dex malus is the cuirasse's (I-L78)
        maluses.append(-content.entry("armours", plate).dex_malus)
    if weapon is not None:
        maluses.append(combat.grip_malus(weapon.grip, hands=cmd.hands, preferred_hand=not cmd.off_hand))
        if cmd.distance is not None:
            maluses.append(combat.range_malus(cmd.distance, weapon.range_m))
    adresse = combat.effective_adresse(stat(a, "Adresse"), [m for m in maluses if m], settings)
    if "aveuglé" in a.conditions or "invisible" in t.conditions:  # I-L413: divided, after the maluses
        adresse = int(checks.blinded_threshold(adresse, _acuity(a, "Acuité olfactive"), _acuity(a, "Acuité auditive"),
                                               settings))
    if weapon is not None and weapon.fixed_damage is None:
        content.power_die(a.power_rank)  # a missing power die is named before any die is rolled
    dice = ctx.dice()
    r = dice.roll("1d100", purpose="attack")
    res = combat.attack(r.total, adresse, content, critical_ceiling=a.critical_ceiling, settings=settings)
    rolls, zone, index = [r], res.zone, 0
    if res.hit and res.critical:
        z = dice.roll("1d100", purpose="hit location")
        rolls.append(z)
        zone, index = _zone(z.total, t, content, settings, critical=True)
    elif res.hit:
        zone, index = _zone(r.total, t, content, settings, critical=False)
    if zone == "choix":
        if not cmd.zone:
            raise RuleError(f"The roll lets {a.name} choose the zone (I-L315): give the zone.")
        zone = cmd.zone
    base = dict(fight=fight.name, attacker=a.id, target=t.id, weapon=weapon.name if weapon else "", adresse=adresse,
                dex_maluses=[m for m in maluses if m], rolls=rolls, hit=res.hit, critical=res.critical,
                fumble=res.fumble, zone=zone if res.hit else "", zone_index=index, defended=cmd.defended,
                pv_after=t.pv, action=cmd.action, turn_after=turn_after, **defence_fields)
    if not res.hit or cmd.defended or zone == "aucune":
        return [Emit(fight_stream(fight.name), AttackResolved(**base))]
    fo: int | Fraction = stat(a, "Fo")
    dtype = weapon.damage_type if weapon else "C"
    power: tuple[Roll, ...] = ()
    if cmd.flat:
        fo, dtype = combat.flat_of_weapon_fo(int(fo)), "C"
    if weapon is None:
        total = None
        if settings.unarmed_fp_mode == "dice":
            total, power = combat.roll_power_dice(dice, content, rank=a.power_rank, fp=a.fp, count=cmd.power_dice,
                                                  settings=settings)
        damage: int | Fraction = combat.unarmed_damage(int(fo), a.fp, total, settings)
    elif weapon.fixed_damage is not None:
        damage = combat.crossbow_damage(weapon, content)
    else:
        total, power = combat.roll_power_dice(dice, content, rank=a.power_rank, fp=a.fp + weapon.fp_bonus,
                                              count=cmd.power_dice, settings=settings)
        damage = combat.weapon_damage(fo, total)
    sr: int | Fraction = 0
    worn = gear.armour_on(t, zone)  # the piece covering the zone hit (I-L75-77)
    if worn:
        armour = content.entry("armours", worn)
        sr = combat.effective_sr(combat.zone_sr(armour, zone, dtype, content), critical=res.critical,
                                 damage_type=dtype, settings=settings)
    lost = combat.pv_lost(damage, sr, t.rn)
    wound = combat.apply_pv_loss(t.pv, lost, zone, destiny_points=t.destiny_points)
    rider = combat.critical_rider(dtype, attacker_fo=int(stat(a, "Fo")), settings=settings) if res.critical else None
    ev = AttackResolved(**{**base, "damage_type": dtype, "power_rolls": list(power), "damage": plain(damage),
                           "sr": plain(sr), "rn": t.rn, "pv_lost": wound.pv_lost, "pv_after": wound.pv_after,
                           "limb_lost": wound.limb_lost, "dead": wound.dead, "rider": rider})
    return [Emit(fight_stream(fight.name), ev)]


def _defence(state: IllerganState, fight: Fight, cmd: Attack, attacker_turn: Turn) -> dict[str, Any]:
    """The defence tried against an attack: the defender's per-turn limit (I-L543); an ally acting in
    defence also gives up a major action, this turn's if unused, else the next one's (I-L552)."""
    if cmd.defence is None:
        if cmd.defended or cmd.defender:
            raise RuleError("Say which defence was used (esquive, parade, blocage, vivacite_elfique or magique, I-L543).")
        return {}
    who = cmd.defender or cmd.target
    if who not in fight.participants:
        raise RuleError(f"{who} does not take part in the fight '{fight.name}'.")
    if who == cmd.attacker:
        raise RuleError("An attacker cannot defend against his own attack.")
    hero = find(state, who)
    if hero.dead:
        raise RuleError(f"{hero.name} is dead.")
    after = defend(fight, hero, cmd.defence)
    if who != cmd.target:
        after = sacrifice(after, "major")
    return dict(defence=cmd.defence, defender=who, defender_turn_after=after)


def decide_action(state: IllerganState, cmd: TakeAction, ctx: Context) -> list[Emit]:
    fight = find_fight(state, cmd.fight)
    if cmd.character not in fight.participants:
        raise RuleError(f"{cmd.character} does not take part in the fight '{fight.name}'.")
    hero = find(state, cmd.character)
    if hero.dead:
        raise RuleError(f"{hero.name} is dead.")
    settings = ctx.settings
    match cmd.action:
        case "major" | "minor" | "skill":
            after = spend(fight, hero, cmd.action, settings)
        case "forgo_major":
            _acts(fight, hero)
            t = turn_of(fight, hero.id, settings)
            try:
                after = msgspec.structs.replace(t, budget=combat.forgo_major(t.budget))
            except RuleError as err:
                raise RuleError(f"{hero.name}: {err}") from None
        case "extra_major":
            if not cmd.what.strip():
                raise RuleError("An extra major action needs the object, spell or skill that gives it (I-L265).")
            t = turn_of(fight, hero.id, settings)
            after = msgspec.structs.replace(t, budget=msgspec.structs.replace(t.budget, extra_major=t.budget.extra_major + 1))
        case "knocked_down":
            after = sacrifice(fight.turns.get(hero.id, Turn()), "major")
    ev = ActionTaken(fight=fight.name, character=hero.id, action=cmd.action, what=cmd.what, turn_after=after)
    return [Emit(fight_stream(fight.name), ev)]


def decide_defend(state: IllerganState, cmd: Defend, ctx: Context) -> list[Emit]:
    fight = find_fight(state, cmd.fight)
    if cmd.character not in fight.participants:
        raise RuleError(f"{cmd.character} does not take part in the fight '{fight.name}'.")
    hero = find(state, cmd.character)
    if hero.dead:
        raise RuleError(f"{hero.name} is dead.")
    after = defend(fight, hero, cmd.defence, against_magic=cmd.against_magic)
    if cmd.for_ally:
        after = sacrifice(after, "major")
    ev = DefenceUsed(fight=fight.name, character=hero.id, defence=cmd.defence, for_ally=cmd.for_ally, turn_after=after)
    return [Emit(fight_stream(fight.name), ev)]


def decide_destiny(state: IllerganState, cmd: SpendDestiny, ctx: Context) -> list[Emit]:
    hero = find(state, cmd.character)
    wound = hero.last_wound
    if wound is None:
        raise RuleError(f"{hero.name} has no death or lost limb for a destiny point to cancel (I-L377).")
    after = combat.spend_destiny_point(hero.destiny_points)
    ev = DestinyPointSpent(character=hero.id, cancels=wound.position, pv_restored=wound.pv_lost,
                           limb_restored=wound.limb_lost, revived=wound.dead, destiny_after=after,
                           narrative=cmd.narrative)
    return [Emit(stream_of(hero.id), ev)]


def _known_level(caster: Hero, spell: Any) -> tuple[str, int, int]:
    """(magic, magic level, minimum level) the caster casts ``spell`` with: a hero's learned spell in its
    magic (I-L17, I-L338), or a creature's spell in its own magic, whose level is its highest spell's
    and whose minimum is the level indicated for the spell (I-L619-623)."""
    if caster.kind == "creature" and spell.name in caster.creature_spells:
        return _creature_magic(caster), max(caster.creature_spells.values()), caster.creature_spells[spell.name]
    known = caster.magics.get(spell.magic)
    if known is None:
        raise RuleError(f"{caster.name} does not know the magic {spell.magic} of {spell.name}.")
    magic.check_known(spell, caster.spells, caster.name)
    return spell.magic, known.level, spell.min_level


def _creature_magic(caster: Hero) -> str:
    return f"Magie de {caster.name}"  # a magic of its own, not a known one (I-L619, I-L621)


def _cost(content: Any, spell: Any, level: int, min_level: int, magic_level: int, cmd: CastSpell, settings: Any) -> int:
    if not min_level <= level <= magic_level:
        raise RuleError(f"{spell.name} can be cast at levels {min_level} to {magic_level} (I-L219, I-L623), "
                        f"not at level {level}.")
    base = magic.spell_base_cost(content, spell, level)
    return int(Fraction(magic.pm_cost(base, cmd.modifiers_pct, whispered=cmd.whispered, settings=settings)).__ceil__())


def decide_cast(state: IllerganState, cmd: CastSpell, ctx: Context) -> list[Emit]:
    caster = find(state, cmd.caster)
    if caster.dead:
        raise RuleError(f"{caster.name} is dead.")
    content, settings = content_of(state), ctx.settings
    spell = content.entry("spells", cmd.spell)
    magic_name, magic_level, min_level = _known_level(caster, spell)
    if caster.kind != "creature":
        magic.check_incantation(caster.incantation_types, whispered=cmd.whispered, gagged=cmd.gagged,
                                paralysed=cmd.paralysed, canalisateur_in_hand=cmd.canalisateur,
                                needs=settings.incantation_needs)
    for holder in state.characters.values():
        for a in holder.active_spells:
            if a.caster == caster.id and a.concentrated:
                raise RuleError(f"{caster.name} concentrates on keeping {a.spell} and cannot cast another spell "
                                f"(I-L494): break the concentration first.")
    if cmd.concentrate and cmd.duration_unit == "minutes":
        raise RuleError("A duration in minutes is invariable (I-L495): concentration does not lengthen it.")
    if cmd.concentrate and cmd.duration <= 0:
        raise RuleError("Concentration keeps a spell with a duration (I-L494): give its duration in turns.")
    if cmd.duration < 0:
        raise RuleError(f"A spell's duration cannot be negative ({cmd.duration}).")
    turn_after = None
    if cmd.fight:
        fight = find_fight(state, cmd.fight)
        if caster.id not in fight.participants:
            raise RuleError(f"{caster.id} does not take part in the fight '{fight.name}'.")
        classes = {spell.spell_class, *(content.entry("spells", s.spell).spell_class for s in cmd.secondaries)}
        if cmd.action == "minor" and len(classes) > 1:
            raise RuleError("A primary spell with a secondary of another class cannot be cast as a minor action (I-L230).")
        turn_after = spend(fight, caster, cmd.action, settings, spell=spell.spell_class or spell.name)
    # the spell, or a secondary added to a primary cast earlier (I-L227), then its secondaries (I-L226-231)
    primary, primary_level = spell, cmd.cast_level
    if cmd.on_primary:
        primary, primary_level = content.entry("spells", cmd.on_primary), cmd.on_primary_level
        magic.check_secondary(primary, spell, primary_level=primary_level, level=cmd.cast_level, magic_level=magic_level)
    elif spell.kind == "secondaire":
        raise RuleError(f"{spell.name} is a secondary spell: cast it with a primary spell or on one cast earlier (I-L226).")
    elif cmd.secondaries and spell.kind != "primaire":
        raise RuleError(f"Secondary spells are cast on a primary spell; {spell.name} is not one (I-L224-226).")
    cost = _cost(content, spell, cmd.cast_level, min_level, magic_level, cmd, settings)
    levels = [cmd.cast_level] if cmd.on_primary else []
    magic.check_combination(primary_level, [*levels, *(s.level for s in cmd.secondaries)], magic_level, content)
    seconds: list[SecondaryCast] = []
    for sc in cmd.secondaries:
        sec = content.entry("spells", sc.spell)
        _known_level(caster, sec)
        magic.check_secondary(primary, sec, primary_level=primary_level, level=sc.level, magic_level=magic_level)
        seconds.append(SecondaryCast(spell=sec.name, level=sc.level,
                                     cost=_cost(content, sec, sc.level, sec.min_level, magic_level, cmd, settings)))
    cost += magic.combination_cost([s.cost for s in seconds])
    if cost > caster.pm:
        raise RuleError(f"{spell.name} at level {cmd.cast_level} costs {cost} PM but {caster.name} has {caster.pm} (I-L17).")
    target = find(state, cmd.target) if cmd.target else None
    if cmd.damage and target is None:
        raise RuleError("Magic damage needs a target.")
    acuity = {"hearing": "Acuité auditive", "smell": "Acuité olfactive"}.get(cmd.sense)
    reach = magic.check_reach(cmd.sense, cmd.distance, energie=caster.characteristics.get("E", 0),
                              acuity=_acuity(caster, acuity) if acuity else 0, settings=settings)
    res = magic.resistance(spell, stealth=cmd.stealth, spotted=cmd.spotted, accept=cmd.accept,
                           self_target=target is None or target.id == caster.id) if target is not None else "none"
    level = magic_level if settings.spell_threshold_level_source == "magic" else cmd.cast_level
    if cmd.fight and not content.pack.pp_by_combination_size:
        raise content.missing("The pp per combination size", "I-L198-203")
    dice = ctx.dice()
    launch = magic.roll_launch(dice, level, content, settings)
    critical = launch.outcome == "critical"
    rolls = list(launch.rolls)
    resisted = False
    if res == "vol_roll" and target is not None and launch.outcome != "counter":
        r = dice.roll("1d100", purpose="Volonté roll")
        rolls.append(r)
        resisted = magic.vol_roll_resists(r.total, stat(target, "Vol"))
    refund_pm = int(magic.refund(cost, launch.rolls[1].total, settings)) if critical else 0
    pm_after = magic.pm_after_cast(caster.pm, caster.pm_max, cost, launch.outcome, refund_pm, settings)
    known = caster.magics.get(magic_name)
    counter_after: int | None = None
    pp = 0
    if cmd.fight:
        pp = magic.pp_in_combat(1 + len(seconds), content, counter_effect=launch.outcome == "counter")
    elif known is not None and settings.pp_out_of_combat and cmd.relevant and launch.outcome != "counter":
        pp, counter_after = magic.pp_out_of_combat(known.casts_out_of_combat, 1)
    pp_before = known.pp if known is not None else 0
    level_after = magic.magic_level_for_pp(pp_before + pp, content, settings) if pp else magic_level
    fields: dict[str, Any] = {}
    if target is not None and cmd.damage and launch.outcome != "counter" and res != "refused":
        lost = int(magic.vol_reduced(cmd.damage, stat(target, "Vol"), settings))
        wound = combat.apply_pv_loss(target.pv, lost, "", destiny_points=target.destiny_points)
        fields = dict(raw_damage=cmd.damage, pv_lost=wound.pv_lost, pv_after=wound.pv_after, dead=wound.dead)
    band = caster.alc.band
    bonus = alcohol.EFFECTS[band].spell_level if band else 0  # Oubli: +1 to the spell's level (I-L134, I-L220)
    eff_level = magic.effective_level(cmd.cast_level, bonus, critical=critical)
    active, stacking, holder_id = None, "", ""
    if cmd.duration and launch.outcome != "counter" and res != "refused":
        holder = target if target is not None else caster
        # n turns become n minutes while concentrating (I-L494); minutes are invariable (I-L495)
        unit = "minutes" if cmd.concentrate else cmd.duration_unit
        active = ActiveSpell(spell=spell.name, caster=caster.id, level=eff_level, duration=cmd.duration, unit=unit,
                             concentrated=cmd.concentrate, position=ctx.position + 1)
        _, stacking = spellbook.stack(holder, active)
        holder_id = holder.id
    ev = SpellCast(caster=caster.id, fight=cmd.fight, magic=magic_name, spell=spell.name, cast_level=cmd.cast_level,
                   magic_level=magic_level, threshold_level=level, cost=cost, rolls=rolls,
                   outcome=launch.outcome, refund_pct=launch.refund_pct, refund_pm=refund_pm, pm_after=pm_after,
                   counter_effect=launch.counter_effect,
                   effective_level=eff_level, pp_gained=pp,
                   magic_level_after=max(level_after, magic_level), target=cmd.target,
                   action=cmd.action if cmd.fight else "", turn_after=turn_after, secondaries=seconds,
                   on_primary=cmd.on_primary, sense=cmd.sense, distance=cmd.distance, reach=plain(reach),
                   level_bonus=bonus, superior_effect=magic.superior_effect_active(spell, magic_level),
                   resistance=res, resisted=resisted, casts_out_of_combat_after=counter_after,
                   active=active if stacking != "cancelled" else None, holder=holder_id, stacking=stacking, **fields)
    stream = fight_stream(cmd.fight) if cmd.fight else stream_of(caster.id)
    return [Emit(stream, ev)]


def decide_end(state: IllerganState, cmd: EndFight, ctx: Context) -> list[Emit]:
    fight = find_fight(state, cmd.fight)
    return [Emit(fight_stream(fight.name), FightEnded(fight=fight.name))]


