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
from ..content import DamageType
from ..locations import limb_gone, nonhumanoid_zone
from ..state import (
    ActiveSpell,
    Fight,
    Hero,
    IllerganState,
    Turn,
    content_of,
    fight_stream,
    find,
    find_fight,
    plain,
    stat,
    stream_of,
)
from ..texts import _
from .model import (
    FLYING,
    HELD,
    HOVERING,
    ActionTaken,
    AfflictionTicked,
    ApplyPoison,
    Attack,
    AttackResolved,
    CastSpell,
    DefenceUsed,
    Defend,
    DestinyPointSpent,
    EndFight,
    FightEnded,
    FightStarted,
    FlightChanged,
    Fly,
    InitiativeEntry,
    InitiativeRolled,
    Move,
    Moved,
    PoisonApplied,
    RollInitiative,
    SecondaryCast,
    SpellCast,
    SpendDestiny,
    StartFight,
    TakeAction,
    acuity_pct,
)


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
        raise RuleError(_('{name} scored 50 or less at initiative and cannot act this turn (I-L7).').format(name=hero.name))


def spend(fight: Fight, hero: Hero, slot: combat.Slot, settings: Any, *, spell: str | None = None) -> Turn:
    """The combatant's turn after one action of ``slot``; refused when the budget has none left."""
    _acts(fight, hero)
    t = turn_of(fight, hero.id, settings)
    try:
        budget = combat.use(t.budget, slot, spell=spell)
    except RuleError as err:
        raise RuleError(_('{name}: {err}').format(name=hero.name, err=err)) from None
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
            raise RuleError(_('The divine power {pd} is already used in that turn (I-L605).').format(pd=pd))
        changes[key] = (*getattr(t, key), pd)
    return msgspec.structs.replace(t, **changes)


def defend(fight: Fight, hero: Hero, kind: combat.Defence, *, against_magic: bool = False) -> Turn:
    """The defender's turn after a defence: one block, one magic defence and one parry or dodge (I-L543)."""
    t = fight.turns.get(hero.id, Turn())  # A34: the window runs until his own next action
    try:
        left = combat.use_defence(t.defences, kind, against_magic=against_magic)
    except RuleError as err:
        raise RuleError(_('{name}: {err}').format(name=hero.name, err=err)) from None
    return msgspec.structs.replace(t, defences=left)


def _new_turns(fight: Fight, settings: Any) -> dict[str, Turn]:
    """Every combatant's turn at a new initiative. The defences come back each turn (I-L542-543): with
    ``round`` at each initiative; with ``own_turn_to_turn`` (A34) at the combatant's first action of the
    new turn, or here when he took no action in the turn that ends (his turn passed without one)."""
    out = {}
    for c in fight.participants:
        t = fight.turns.get(c, Turn())
        fresh = settings.defence_window == "round" or t.defences_turn < fight.turn
        out[c] = Turn(budget=combat.new_turn(t.owed_major, t.owed_minor), pds=t.owed_pds, moved_m=t.owed_m,
                      defences=combat.DefenceBudget() if fresh else t.defences,
                      defences_turn=(fight.turn + 1 if settings.defence_window == "round" else fight.turn)
                      if fresh else t.defences_turn)
    return out


def handicap(hero: Hero, fight: str, turn: int) -> int:
    """The Dex a critical's Handicap takes off in this fight turn (I-L509)."""
    return sum(a.dex_malus for a in hero.afflictions if a.fight == fight and a.first_turn <= turn <= a.last_turn)


def _bleeding(state: IllerganState, fight: Fight, turns: range) -> list[AfflictionTicked]:
    """The Hémorragie PV lost over ``turns`` of the fight (I-L507), each victim's ticks in one event."""
    out = []
    for c in fight.participants:
        hero = state.characters[c]
        pv = hero.pv
        for a in hero.afflictions:
            n = sum(1 for t in turns if a.fight == fight.name and a.pv_per_turn and a.first_turn <= t <= a.last_turn)
            if not n or hero.dead:
                continue
            wound = combat.apply_pv_loss(pv, n * a.pv_per_turn, "", destiny_points=hero.destiny_points)
            out.append(AfflictionTicked(fight=fight.name, character=c, affliction=a.name, turns=n,
                                        pv_lost=wound.pv_lost, pv_after=wound.pv_after, dead=wound.dead))
            pv = wound.pv_after
            if wound.dead:
                break
    return out


# ============================================================================ decisions
def decide_start(state: IllerganState, cmd: StartFight, ctx: Context) -> list[Emit]:
    if not cmd.fight.strip() or ":" in cmd.fight:
        raise RuleError(_('A fight needs a name without a colon, not {fight!r}.').format(fight=cmd.fight))
    plain_id(cmd.fight, "Fight name")
    if cmd.fight in state.fights and not state.fights[cmd.fight].ended:
        raise RuleError(_("The fight '{fight}' is already under way.").format(fight=cmd.fight))
    if len(set(cmd.participants)) < 2:
        raise RuleError(_('A fight needs at least two different participants.'))
    for c in cmd.participants:
        if find(state, c).dead:
            raise RuleError(_('{c} is dead and cannot fight.').format(c=c))
    return [Emit(fight_stream(cmd.fight), FightStarted(fight=cmd.fight, participants=list(cmd.participants)))]


def decide_initiative(state: IllerganState, cmd: RollInitiative, ctx: Context) -> list[Emit]:
    fight = find_fight(state, cmd.fight)
    for c in (*cmd.maluses, *cmd.unspotted_by, *(u for us in cmd.unspotted_by.values() for u in us)):
        if c not in fight.participants:
            raise RuleError(_("{c} does not take part in the fight '{name}'.").format(c=c, name=fight.name))
    for c, unaware in cmd.unspotted_by.items():
        if c in unaware:
            raise RuleError(_('{c} cannot be unspotted by himself (I-L8).').format(c=c))
    landings = _flyers_at_turn_end(state, fight, ctx.settings)  # I-L564-565: the turn that ends
    ticks = _bleeding(state, fight, range(fight.turn + 1, fight.turn + 2))  # I-L507: at the start of the turn
    bled_to_death = {t.character for t in ticks if t.dead}
    if not ctx.settings.initiative_reroll_each_turn and fight.turn >= 1:
        if cmd.maluses:
            raise RuleError(_('The initiative is kept from the first turn (initiative_reroll_each_turn=false); no new malus applies (I-L4-7, A1).'))
        if cmd.unspotted_by:
            raise RuleError(_('The initiative is kept from the first turn (initiative_reroll_each_turn=false); stealth gives no new order (I-L8, A1).'))
        order = [c for c in fight.order if not state.characters[c].dead and c not in bled_to_death]
        kept = InitiativeRolled(fight=fight.name, turn=fight.turn + 1, entries=[], order=order,
                                turns=_new_turns(fight, ctx.settings), kept=True)
        return [Emit(fight_stream(fight.name), e) for e in (*landings, *ticks, kept)]
    dice = ctx.dice()
    entries, results = [], []
    for c in fight.participants:
        hero = state.characters[c]
        if hero.dead or c in bled_to_death:
            continue
        dex, vol, malus = stat(hero, "Dex") - handicap(hero, fight.name, fight.turn + 1), stat(hero, "Vol"), cmd.maluses.get(c, 0)
        combat.initiative_score(dex, vol, 1, malus)  # the malus is checked before rolling
        ini = combat.roll_initiative(dice, c, dex, vol, malus)
        assert ini.roll is not None  # the engine rolled it just now
        results.append(ini)
        entries.append(InitiativeEntry(character=c, dex=dex, vol=vol, malus=malus, score=ini.score, acts=ini.acts,
                                       roll=ini.roll))
    ranked = combat.initiative_order(results, unspotted_by={k: set(v) for k, v in cmd.unspotted_by.items()},
                                     settings=ctx.settings)
    order = [e.name for e in ranked]
    acts = {e.name: e.acts for e in ranked}  # A2: a stealthy attacker may act at 50 or less
    entries = [msgspec.structs.replace(e, acts=acts[e.character]) for e in entries]
    ev = InitiativeRolled(fight=fight.name, turn=fight.turn + 1, entries=entries, order=order,
                          turns=_new_turns(fight, ctx.settings),
                          unspotted_by={k: list(v) for k, v in cmd.unspotted_by.items()})
    return [Emit(fight_stream(fight.name), e) for e in (*landings, *ticks, ev)]


def _zone(face: int, target: Hero, content: Any, settings: Any, *, critical: bool) -> tuple[str, int]:
    if target.body is not None:
        zone, index = nonhumanoid_zone(face, target.body, content, settings)
        return ("choix" if critical and zone == "aucune" else zone), index
    zone = combat.critical_zone(face, content) if critical else combat.humanoid_zone(face, content)
    return zone, 0


def _weapon(attacker: Hero, name: str | None, content: Any) -> Any:
    chosen = attacker.weapon if name is None else (name or None)
    return content.entry("weapons", chosen) if chosen else None


def _adresse_maluses(a: Hero, weapon: Any, cmd: Attack, fight: Fight) -> list[int]:
    """The Dex maluses of the attack: grip (I-L87-89), range (I-L95-97), a thrown melee weapon (I-L99),
    a critical's Handicap (I-L509); arms lost (I-L318)."""
    combat.hands_free(a.limbs_lost, weapon=weapon is not None, hands=cmd.hands)
    maluses = []
    if weapon is not None:
        preferred = not cmd.off_hand and f"bras {a.preferred_hand}" not in a.limbs_lost  # I-L318: the other arm
        maluses.append(combat.grip_malus(weapon.grip, hands=cmd.hands, preferred_hand=preferred))
        if cmd.thrown:
            if weapon.range_m is not None:
                raise RuleError(_('{name} is a ranged weapon: it is shot, not thrown (I-L99).').format(name=weapon.name))
            if cmd.distance is None:
                raise RuleError(_('Throwing {name} needs the distance to the target (--distance, I-L99).').format(name=weapon.name))
            maluses.append(combat.range_malus(cmd.distance, weapon.thrown_range_m, thrown_melee=True))
        elif weapon.range_m is not None:
            if cmd.distance is None:
                raise RuleError(_('{name} shoots: give the distance to the target (--distance, I-L95-97).').format(name=weapon.name))
            maluses.append(combat.range_malus(cmd.distance, weapon.range_m))
        elif cmd.distance is not None:
            raise RuleError(_('{name} has no range: throw it (--thrown, −40 Dex, I-L99) or strike in melee.').format(name=weapon.name))
    elif cmd.thrown:
        raise RuleError(_('Only a weapon can be thrown (I-L99).'))
    maluses.append(-handicap(a, fight.name, fight.turn))
    return [m for m in maluses if m]


def _attack_turn(fight: Fight, a: Hero, cmd: Attack, settings: Any) -> tuple[Turn, str | None]:
    """The attacker's turn after the attack, and the natural weapon it strikes with. A bestiary creature has
    a fixed number of attacks, all in its one major action (I-L447, I-L451-452); with several natural
    weapons it uses a different one at each attack, and starts the cycle again once all are used (I-L449)."""
    if not a.attacks_per_turn:
        return spend(fight, a, cmd.action, settings), None
    if a.natural_weapons and a.family == "élémentaire" and cmd.target == a.id:
        a = msgspec.structs.replace(a, natural_weapons=())  # its spell, not a natural weapon (I-L529)
    if cmd.action == "extra_major":
        raise RuleError(_('{name} has a fixed number of attacks and one major action a turn (I-L447, I-L452).').format(name=a.name))
    _acts(fight, a)
    t = turn_of(fight, a.id, settings)
    if t.attacks >= a.attacks_per_turn:
        raise RuleError(_('{name} has made its {attacks_per_turn} attack(s) this turn (I-L447).').format(name=a.name, attacks_per_turn=a.attacks_per_turn))
    if t.attacks == 0:
        t = spend(fight, a, "major", settings)
    natural = None
    cycle = t.cycle
    if a.natural_weapons:
        cycle = () if set(cycle) >= set(a.natural_weapons) else cycle
        left = [w for w in a.natural_weapons if w not in cycle]
        natural = cmd.weapon if cmd.weapon else left[0]
        if natural not in a.natural_weapons:
            raise RuleError(_('{name} attacks with its natural weapons: {value} (I-L445).').format(name=a.name, value=', '.join(a.natural_weapons)))
        if natural in cycle:
            raise RuleError(_('{name} must use a different natural weapon at each attack: {left} before {natural} again (I-L449).').format(name=a.name, left=', '.join(left), natural=natural))
        cycle = (*cycle, natural)
    return msgspec.structs.replace(t, attacks=t.attacks + 1, cycle=cycle), natural


def decide_attack(state: IllerganState, cmd: Attack, ctx: Context) -> list[Emit]:
    fight = find_fight(state, cmd.fight)
    for c in (cmd.attacker, cmd.target):
        if c not in fight.participants:
            raise RuleError(_("{c} does not take part in the fight '{name}'.").format(c=c, name=fight.name))
    a, t = find(state, cmd.attacker), find(state, cmd.target)
    if a.dead or t.dead:
        raise RuleError(_('{name} is dead.').format(name=(a if a.dead else t).name))
    content, settings = content_of(state), ctx.settings
    if cmd.letalite is not None and cmd.letalite <= 0:
        raise RuleError(_('A Létalité is a positive number, not {letalite} (I-L507).').format(letalite=cmd.letalite))
    extra = [o.target for o in cmd.others]
    if len(set(extra)) != len(extra) or cmd.target in extra or cmd.attacker in extra:
        raise RuleError(_('Each other target of the attack is named once, and is neither the first target nor the attacker (I-L292).'))
    for c in extra:
        if c not in fight.participants:
            raise RuleError(_("{c} does not take part in the fight '{name}'.").format(c=c, name=fight.name))
        if find(state, c).dead:
            raise RuleError(_('{name} is dead.').format(name=find(state, c).name))
    if cmd.defender and cmd.defender in extra:
        raise RuleError(_('A target cannot act in defence for another target of the same attack (I-L292).'))
    turn_after, natural = _attack_turn(fight, a, cmd, settings)
    defence_fields = _defence(state, fight, cmd, turn_after)
    weapon = _weapon(a, natural if natural is not None else cmd.weapon, content)
    try:
        maluses = _adresse_maluses(a, weapon, cmd, fight)
    except RuleError as err:
        raise RuleError(_('{name}: {err}').format(name=a.name, err=err)) from None
    plate = gear.cuirasse(a)
    if plate:  # the Dex malus is the cuirasse's (I-L78)
        maluses.append(-content.entry("armours", plate).dex_malus)
    adresse = combat.effective_adresse(stat(a, "Adresse"), [m for m in maluses if m], settings)
    if "aveuglé" in a.conditions or "invisible" in t.conditions:  # I-L413: divided, after the maluses
        adresse = int(checks.blinded_threshold(adresse, acuity_pct(a, "Acuité olfactive"), acuity_pct(a, "Acuité auditive"),
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
            raise RuleError(_('The roll lets {name} choose the zone (I-L315): give the zone.').format(name=a.name))
        zone = cmd.zone
    redirected = ""
    if res.hit and limb_gone(t.body, zone, t.limbs_lost):  # I-L318: a lost limb cannot be lost again
        redirected, zone = zone, combat.lost_limb_zone(zone, t.limbs_lost, settings)
    defended, threshold = cmd.defended, None
    if res.hit and cmd.defence_pct is not None:  # the defence is rolled once the hit and its zone are known (I-L554)
        threshold = combat.defence_threshold(cmd.defence_pct, cmd.defence or "", critical=res.critical)
        d = dice.roll("1d100", purpose="defence")
        rolls.append(d)
        defended = checks.skill_check(d.total, threshold).success
    elif res.hit and res.critical and cmd.defended and cmd.defence in combat.PHYSICAL_DEFENCES:
        raise RuleError(_("A critical gives −40 to physical defences (I-L504): give the defender's --defence-pct so the engine rolls the defence."))
    base = dict(fight=fight.name, attacker=a.id, target=t.id, weapon=weapon.name if weapon else "", adresse=adresse,
                dex_maluses=maluses, rolls=rolls, hit=res.hit, critical=res.critical,
                fumble=res.fumble, zone=zone if res.hit else "", zone_index=index, defended=defended,
                pv_after=t.pv, action=cmd.action, turn_after=turn_after, defence_threshold=threshold,
                redirected_from=redirected, **defence_fields)
    # the other targets of the same attack: each defends on its own (I-L292), after the first
    others = []
    for o in cmd.others:
        ot = find(state, o.target)
        o_fields = _defence(state, fight, Attack(fight=cmd.fight, attacker=cmd.attacker, target=o.target,
                                                 defence=o.defence, defended=o.defended, defence_pct=o.defence_pct),
                            turn_after)
        o_zone, o_redirected = (zone, "")
        if res.hit and limb_gone(ot.body, zone, ot.limbs_lost):
            o_redirected, o_zone = zone, combat.lost_limb_zone(zone, ot.limbs_lost, settings)
        o_defended, o_threshold = o.defended, None
        if res.hit and o.defence_pct is not None:
            o_threshold = combat.defence_threshold(o.defence_pct, o.defence or "", critical=res.critical)
            d = dice.roll("1d100", purpose=f"defence of {ot.id}")
            rolls.append(d)
            o_defended = checks.skill_check(d.total, o_threshold).success
        elif res.hit and res.critical and o.defended and o.defence in combat.PHYSICAL_DEFENCES:
            raise RuleError(_("A critical gives −40 to physical defences (I-L504): give the defender's --defence-pct so the engine rolls the defence."))
        others.append((ot, o, o_zone, o_redirected, o_defended, o_threshold, o_fields))
    blocked = defended and cmd.defence == "blocage"
    needs = [not (defended and not blocked) and zone != "aucune"]
    needs += [not (od and o.defence != "blocage") and oz != "aucune" for _, o, oz, _, od, _, _ in others]
    if not res.hit or not any(needs):
        return [Emit(fight_stream(fight.name), AttackResolved(**base))] + [
            Emit(fight_stream(fight.name), AttackResolved(**{
                **base, "target": ot.id, "pv_after": ot.pv, "zone": oz if res.hit else "", "defended": od,
                "defence_threshold": oth, "redirected_from": ored, "same_attack_as": t.id, "turn_after": None,
                "defence": "", "defender": "", "defender_turn_after": None, **of}))
            for ot, o, oz, ored, od, oth, of in others]
    fo: int | Fraction = stat(a, "Fo")
    dtype: DamageType = weapon.damage_type if weapon else "C"
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
    main = _damage_on(state, content, settings, a, t, zone, damage, dtype, res.critical, defended, cmd.defence,
                      base.get("defender", ""), cmd.letalite) if needs[0] else {}
    out = [AttackResolved(**{**base, **main, "power_rolls": list(power)})]
    for ot, o, oz, ored, od, oth, of in others:
        fields = {**base, "target": ot.id, "pv_after": ot.pv, "zone": oz, "defended": od, "defence_threshold": oth,
                  "redirected_from": ored, "same_attack_as": t.id, "turn_after": None, "defence": "", "defender": "",
                  "defender_turn_after": None, **of}
        if oz != "aucune" and not (od and o.defence != "blocage"):
            fields.update(_damage_on(state, content, settings, a, ot, oz, damage, dtype, res.critical, od, o.defence,
                                     of.get("defender", ""), cmd.letalite))
        out.append(AttackResolved(**fields))
    return [Emit(fight_stream(fight.name), ev) for ev in out]


def _damage_on(state: IllerganState, content: Any, settings: Any, a: Hero, t: Hero, zone: str,
               damage: int | Fraction, dtype: DamageType, critical: bool, defended: bool, defence: str | None,
               defender: str, letalite: int | None = None) -> dict[str, Any]:
    """The damage of a hit on one target: a successful block through the shield first (I-L273, A13), then
    the zone's SR and the RN (I-L279-281), the limb or the death (I-L318), the critical's rider (I-L506)."""
    through: int | Fraction = damage
    shield_fields: dict[str, Any] = {}
    if defended and defence == "blocage":  # I-L273: a successful block still leads to the damage
        holder = find(state, defender or t.id)
        shield = content.entry("shields", holder.shield)
        ssr = combat.effective_sr(shield.sr, critical=critical, damage_type=dtype, settings=settings)
        ps = holder.shield_ps if holder.shield_ps is not None else shield.ps
        b = combat.block(damage, shield_sr=ssr, shield_ps=ps, settings=settings)
        through = b.to_character
        shield_fields = dict(shield=shield.name, shield_sr=plain(ssr), shield_ps_lost=b.ps_lost,
                             shield_ps_after=b.ps_after, shield_destroyed=b.destroyed)
    sr: int | Fraction = 0
    worn = gear.armour_on(t, zone)  # the piece covering the zone hit (I-L75-77)
    if worn:
        armour = content.entry("armours", worn)
        sr = combat.effective_sr(combat.zone_sr(armour, zone, dtype, content), critical=critical,
                                 damage_type=dtype, settings=settings)
    lost = combat.pv_lost(through, sr, t.rn) if through else 0
    wound = combat.apply_pv_loss(t.pv, lost, zone, destiny_points=t.destiny_points)
    rider = None
    if critical and lost > 0 and t.family != "végétal":  # I-L506 "la cible subit"; no physical alteration on a plant (I-L628)
        rider = combat.critical_rider(dtype, attacker_fo=int(stat(a, "Fo")), precise=letalite is not None,
                                      letalite=letalite, settings=settings)
    return {"damage_type": dtype, "damage": plain(damage), "sr": plain(sr), "rn": t.rn, "pv_lost": wound.pv_lost,
            "pv_after": wound.pv_after, "limb_lost": wound.limb_lost, "dead": wound.dead, "rider": rider,
            **shield_fields}


def _defence(state: IllerganState, fight: Fight, cmd: Attack, attacker_turn: Turn) -> dict[str, Any]:
    """The defence tried against an attack: the defender's per-turn limit (I-L543); an ally acting in
    defence also gives up a major action, this turn's if unused, else the next one's (I-L552). A block
    needs the Blocage skill and a shield (I-L547)."""
    if cmd.defence is None:
        if cmd.defended or cmd.defender or cmd.defence_pct is not None:
            raise RuleError(_('Say which defence was used (esquive, parade, blocage, vivacite_elfique or magique, I-L543).'))
        return {}
    if cmd.defended and cmd.defence_pct is not None:
        raise RuleError(_('Either the defence is rolled (--defence-pct) or its success is given (--defended), not both.'))
    who = cmd.defender or cmd.target
    if who not in fight.participants:
        raise RuleError(_("{who} does not take part in the fight '{name}'.").format(who=who, name=fight.name))
    if who == cmd.attacker:
        raise RuleError(_('An attacker cannot defend against his own attack.'))
    hero = find(state, who)
    if hero.dead:
        raise RuleError(_('{name} is dead.').format(name=hero.name))
    if cmd.defence == "blocage":
        if "Blocage" not in hero.skills:
            raise RuleError(_('{name} cannot block: a block needs the Blocage skill (I-L547).').format(name=hero.name))
        if not hero.shield:
            raise RuleError(_('{name} cannot block: a block needs a shield (I-L547).').format(name=hero.name))
    after = defend(fight, hero, cmd.defence)
    if who != cmd.target:
        after = sacrifice(after, "major")
    return dict(defence=cmd.defence, defender=who, defender_turn_after=after)


def decide_action(state: IllerganState, cmd: TakeAction, ctx: Context) -> list[Emit]:
    fight = find_fight(state, cmd.fight)
    hero = _live_fighter(state, fight, cmd.character)
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
                raise RuleError(_('{name}: {err}').format(name=hero.name, err=err)) from None
        case "extra_major":
            if not cmd.what.strip():
                raise RuleError(_('An extra major action needs the object, spell or skill that gives it (I-L265).'))
            t = turn_of(fight, hero.id, settings)
            after = msgspec.structs.replace(t, budget=msgspec.structs.replace(t.budget, extra_major=t.budget.extra_major + 1))
        case "knocked_down":
            if hero.family == "végétal" and cmd.by:
                raise RuleError(_('{name} is a plant: physical alterations do not work on it (I-L628).').format(name=hero.name))
            if cmd.by:
                combat.can_knock_down(stat(find(state, cmd.by), "Vit"), stat(hero, "Vit"),
                                      quadruped=hero.body is not None and hero.body.legs() >= 4)
            after = sacrifice(fight.turns.get(hero.id, Turn()), "major")
        case "disarmed":  # I-L414: the weapon falls
            if not hero.weapon:
                raise RuleError(_('{name} holds no weapon to be disarmed of (I-L414).').format(name=hero.name))
            after = turn_of(fight, hero.id, settings)
        case "pick_up":  # I-L414: a minor action to pick it up
            if not hero.dropped_weapon:
                raise RuleError(_('{name} has no weapon on the ground to pick up (I-L414).').format(name=hero.name))
            after = spend(fight, hero, "minor", settings)
    if cmd.by and cmd.action != "knocked_down":
        raise RuleError(_('Only a knock-down names who caused it (--by, I-L416).'))
    ev = ActionTaken(fight=fight.name, character=hero.id, action=cmd.action, what=cmd.what, turn_after=after,
                     by=cmd.by)
    return [Emit(fight_stream(fight.name), ev)]


def _live_fighter(state: IllerganState, fight: Fight, character: str) -> Hero:
    """``character`` as a living participant of ``fight`` (the first check of every fighter's own command)."""
    if character not in fight.participants:
        raise RuleError(_("{character} does not take part in the fight '{name}'.").format(character=character, name=fight.name))
    hero = find(state, character)
    if hero.dead:
        raise RuleError(_('{name} is dead.').format(name=hero.name))
    return hero


def _movement(hero: Hero, t: Turn) -> Fraction:
    """This turn's movement: the Dep, or the Sprint used as the major action (I-L258-260), doubled in
    flight (I-L560-561), plus a take-off's bonus (I-L558)."""
    base = Fraction(str(t.sprint_m)) if t.sprint_m else Fraction(stat(hero, "Dep"))
    if FLYING in hero.conditions:
        base *= 2
    return base + Fraction(str(t.extra_m))


def _left(hero: Hero, t: Turn) -> Fraction:
    return max(Fraction(0), _movement(hero, t) - Fraction(str(t.moved_m)))


def decide_move(state: IllerganState, cmd: Move, ctx: Context) -> list[Emit]:
    fight = find_fight(state, cmd.fight)
    hero = _live_fighter(state, fight, cmd.character)
    if cmd.metres < 0 or cmd.vertical_m < 0 or cmd.metres + cmd.vertical_m <= 0:
        raise RuleError(_('A move needs some metres, horizontal or vertical (I-L428).'))
    _acts(fight, hero)
    t = turn_of(fight, hero.id, ctx.settings)
    mode = "sprint" if (cmd.sprint is not None or t.sprint_m) else "dep"
    if cmd.sprint is not None and not t.sprint_m:
        if cmd.sprint <= 0:
            raise RuleError(_('The Sprint on the sheet is a number of metres, not {sprint:g} (I-L358).').format(sprint=cmd.sprint))
        t = msgspec.structs.replace(spend(fight, hero, "major", ctx.settings), sprint_m=cmd.sprint)  # I-L258
    elif mode == "dep" and t.budget.major == 0 and not t.budget.extra_major:
        raise RuleError(_('{name} has used his major action: the Dep comes before the attack, never between two attacks (I-L260-263).').format(name=hero.name))
    left = _left(hero, t)
    if cmd.u_turns < 0 or (cmd.u_turns and FLYING not in hero.conditions):
        raise RuleError(_('U-turns cost 2 m more in flight only (I-L564).'))
    metres = Fraction(str(cmd.metres)) + combat.U_TURN_EXTRA_M * cmd.u_turns
    vertical = Fraction(str(cmd.vertical_m))
    if metres > left:
        raise RuleError(_('{name} has {plain} m of movement left this turn, not {plain2} (I-L258-260).').format(name=hero.name, plain=plain(left), plain2=plain(metres)))
    owed = max(Fraction(0), vertical - (left - metres))  # I-L428: vertical metres may spill into the next turn
    used = min(left, metres + vertical)
    after = msgspec.structs.replace(t, moved_m=plain(Fraction(str(t.moved_m)) + used), owed_m=plain(Fraction(str(t.owed_m)) + owed))
    ev = Moved(fight=fight.name, character=hero.id, metres=cmd.metres, vertical_m=cmd.vertical_m, mode=mode,
               available_m=plain(left), left_m=plain(left - used), owed_m=plain(owed), turn_after=after)
    return [Emit(fight_stream(fight.name), ev)]


def decide_poison(state: IllerganState, cmd: ApplyPoison, ctx: Context) -> list[Emit]:
    fight = find_fight(state, cmd.fight)
    hero = _live_fighter(state, fight, cmd.character)
    if hero.family == "végétal":
        raise RuleError(_('{name} is a plant: poisons and venoms do not work on it (I-L628).').format(name=hero.name))
    if not cmd.poison.strip() or cmd.pv_per_turn <= 0 or cmd.turns <= 0:
        raise RuleError(_('A poison needs a name, its PV per turn and its turns, all given by the game master (I-L415).'))
    ev = PoisonApplied(fight=fight.name, character=hero.id, poison=cmd.poison, pv_per_turn=cmd.pv_per_turn,
                       first_turn=fight.turn + 1, last_turn=fight.turn + cmd.turns)
    return [Emit(fight_stream(fight.name), ev)]


def decide_fly(state: IllerganState, cmd: Fly, ctx: Context) -> list[Emit]:
    fight = find_fight(state, cmd.fight)
    hero = _live_fighter(state, fight, cmd.character)
    flying = FLYING in hero.conditions
    if cmd.land and cmd.held:
        raise RuleError(_('A held flyer lands by himself at the end of his turn (I-L565): --held or --land, not both.'))
    if cmd.land:
        if not flying:
            raise RuleError(_('{name} is not flying.').format(name=hero.name))
        return [Emit(fight_stream(fight.name), FlightChanged(fight=fight.name, character=hero.id, flying=False))]
    if cmd.held:
        if not flying:
            raise RuleError(_('{name} is not flying: only a flyer is held from the ground (I-L565).').format(name=hero.name))
        if HELD in hero.conditions:
            raise RuleError(_('{name} is already held: he lands at the end of his turn (I-L565).').format(name=hero.name))
        if cmd.hover or cmd.passengers or cmd.means:
            raise RuleError(_('Being held (I-L565) takes no means, passenger or hovering: those come with the take-off.'))
        if cmd.held not in fight.participants or cmd.held == hero.id:
            raise RuleError(_('The flyer is held by another combatant of the fight, not {held!r} (I-L565).').format(held=cmd.held))
        holder = find(state, cmd.held)
        if holder.dead or FLYING in holder.conditions:
            raise RuleError(_('{name} is not on the ground: only an opponent on the ground forces a landing (I-L565).').format(name=holder.name))
        return [Emit(fight_stream(fight.name), FlightChanged(fight=fight.name, character=hero.id, flying=True,
                                                             held=True, held_by=holder.id))]
    if flying:
        raise RuleError(_('{name} is already flying.').format(name=hero.name))
    if cmd.hover and not cmd.hover.strip():
        raise RuleError(_('Stationary flight needs a bonus that allows it (I-L564): name it (--hover).'))
    for p in cmd.passengers:
        if p not in fight.participants or p == hero.id:
            raise RuleError(_('A passenger is another combatant of the fight, not {p!r}.').format(p=p))
    vits = [stat(find(state, p), "Vit") for p in cmd.passengers]
    if not combat.passengers_allowed(stat(hero, "Fo"), vits):
        raise RuleError(_('{name} carries passengers of {value} Vit at most (6 × Fo), not {sum} (I-L566).').format(name=hero.name, value=6 * stat(hero, 'Fo'), sum=sum(vits)))
    wings = hero.body is not None and (hero.body.wings_left + hero.body.wings_right) > 0
    if not wings and not cmd.means.strip():
        raise RuleError(_('{name} has no wings: name what lets him fly (I-L556).').format(name=hero.name))
    t = turn_of(fight, hero.id, ctx.settings)
    left = _left(hero, t)
    if left <= 0:
        raise RuleError(_('Taking off needs some movement left this turn (I-L558).'))
    after = spend(fight, hero, "minor", ctx.settings)  # a minor action, success or not (I-L558)
    dex = int(hero.characteristics.get("Dex", 0))  # pure Dex: the equipment's maluses are ignored (I-L558)
    r = ctx.dice().roll("1d100", purpose="take-off")
    ok, now = combat.takeoff(r.total, dex, left)
    if ok:  # what is left doubles; in flight the turn's base counts double, so the bonus makes up the rest
        base = Fraction(str(after.sprint_m)) if after.sprint_m else Fraction(stat(hero, "Dep"))
        after = msgspec.structs.replace(after, extra_m=plain(2 * left + Fraction(str(after.moved_m)) - 2 * base))
    ev = FlightChanged(fight=fight.name, character=hero.id, flying=ok, roll=r, dex=dex, success=ok,
                       left_before_m=plain(left), left_after_m=plain(now), turn_after=after,
                       passengers=list(cmd.passengers), hover=ok and bool(cmd.hover))
    return [Emit(fight_stream(fight.name), ev)]


def _flyers_at_turn_end(state: IllerganState, fight: Fight, settings: Any) -> list[FlightChanged]:
    """The end of a turn for the flyers (I-L564-565): a flyer held from the ground lands (forced landing);
    any other flyer, unless a bonus lets him hover, must have used all his movement this turn."""
    landings = []
    for c in fight.participants:
        hero = state.characters[c]
        if hero.dead or FLYING not in hero.conditions:
            continue
        if HELD in hero.conditions:
            landings.append(FlightChanged(fight=fight.name, character=c, flying=False, forced=True))
            continue
        left = _left(hero, turn_of(fight, c, settings))
        if HOVERING not in hero.conditions and left > 0:
            raise RuleError(_('{name} flies and must use all his movement this turn (I-L564): {plain} m left; move them (combat move) or land first.').format(name=hero.name, plain=plain(left)))
    return landings


def decide_defend(state: IllerganState, cmd: Defend, ctx: Context) -> list[Emit]:
    fight = find_fight(state, cmd.fight)
    hero = _live_fighter(state, fight, cmd.character)
    if cmd.defence == "blocage" and ("Blocage" not in hero.skills or not hero.shield):
        raise RuleError(_('{name} cannot block: a block needs the Blocage skill and a shield (I-L547).').format(name=hero.name))
    after = defend(fight, hero, cmd.defence, against_magic=cmd.against_magic)
    if cmd.for_ally:
        after = sacrifice(after, "major")
    ev = DefenceUsed(fight=fight.name, character=hero.id, defence=cmd.defence, for_ally=cmd.for_ally, turn_after=after)
    return [Emit(fight_stream(fight.name), ev)]


def decide_destiny(state: IllerganState, cmd: SpendDestiny, ctx: Context) -> list[Emit]:
    hero = find(state, cmd.character)
    wound = hero.last_wound
    if wound is None:
        raise RuleError(_('{name} has no death or lost limb for a destiny point to cancel (I-L377).').format(name=hero.name))
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
        raise RuleError(_('{name} does not know the magic {magic} of {name2}.').format(name=caster.name, magic=spell.magic, name2=spell.name))
    magic.check_known(spell, caster.spells, caster.name)
    return spell.magic, known.level, spell.min_level


def _creature_magic(caster: Hero) -> str:
    return f"Magie de {caster.name}"  # a magic of its own, not a known one (I-L619, I-L621)


def _cost(content: Any, spell: Any, level: int, min_level: int, magic_level: int, cmd: CastSpell, settings: Any) -> int:
    if not min_level <= level <= magic_level:
        raise RuleError(_('{name} can be cast at levels {min_level} to {magic_level} (I-L219, I-L623), not at level {level}.').format(name=spell.name, min_level=min_level, magic_level=magic_level, level=level))
    base = magic.spell_base_cost(content, spell, level)
    return int(Fraction(magic.pm_cost(base, cmd.modifiers_pct, whispered=cmd.whispered, settings=settings)).__ceil__())


def decide_cast(state: IllerganState, cmd: CastSpell, ctx: Context) -> list[Emit]:
    caster = find(state, cmd.caster)
    if caster.dead:
        raise RuleError(_('{name} is dead.').format(name=caster.name))
    content, settings = content_of(state), ctx.settings
    spell = content.entry("spells", cmd.spell)
    magic_name, magic_level, min_level = _known_level(caster, spell)
    if caster.kind != "creature":
        magic.check_incantation(caster.incantation_types, whispered=cmd.whispered, gagged=cmd.gagged,
                                paralysed=cmd.paralysed, canalisateur_in_hand=cmd.canalisateur,
                                needs=settings.incantation_needs)
    if cmd.concentrate and cmd.duration_unit == "minutes":
        raise RuleError(_('A duration in minutes is invariable (I-L495): concentration does not lengthen it.'))
    if cmd.concentrate and cmd.duration <= 0:
        raise RuleError(_('Concentration keeps a spell with a duration (I-L494): give its duration in turns.'))
    if cmd.duration < 0:
        raise RuleError(_("A spell's duration cannot be negative ({duration}).").format(duration=cmd.duration))
    turn_after = None
    if cmd.fight:
        fight = find_fight(state, cmd.fight)
        if caster.id not in fight.participants:
            raise RuleError(_("{id} does not take part in the fight '{name}'.").format(id=caster.id, name=fight.name))
        classes = {spell.spell_class, *(content.entry("spells", s.spell).spell_class for s in cmd.secondaries)}
        if cmd.action == "minor" and len(classes) > 1:
            raise RuleError(_('A primary spell with a secondary of another class cannot be cast as a minor action (I-L230).'))
        if caster.family == "élémentaire" and caster.attacks_per_turn:  # I-L529: a spell is one of its attacks
            turn_after, _unused = _attack_turn(fight, caster, Attack(fight=fight.name, attacker=caster.id, target=caster.id,
                                                                action="extra_major" if cmd.action == "extra_major"
                                                                else "major"), settings)
        else:
            turn_after = spend(fight, caster, cmd.action, settings, spell=spell.spell_class or spell.name)
    # the spell, or a secondary added to a primary cast earlier (I-L227), then its secondaries (I-L226-231)
    primary, primary_level = spell, cmd.cast_level
    if cmd.on_primary:
        primary, primary_level = content.entry("spells", cmd.on_primary), cmd.on_primary_level
        magic.check_secondary(primary, spell, primary_level=primary_level, level=cmd.cast_level, magic_level=magic_level)
    elif spell.kind == "secondaire":
        raise RuleError(_('{name} is a secondary spell: cast it with a primary spell or on one cast earlier (I-L226).').format(name=spell.name))
    elif cmd.secondaries and spell.kind != "primaire":
        raise RuleError(_('Secondary spells are cast on a primary spell; {name} is not one (I-L224-226).').format(name=spell.name))
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
        raise RuleError(_('{name} at level {cast_level} costs {cost} PM but {name2} has {pm} (I-L17).').format(name=spell.name, cast_level=cmd.cast_level, cost=cost, name2=caster.name, pm=caster.pm))
    target = find(state, cmd.target) if cmd.target else None
    if cmd.damage and target is None:
        raise RuleError(_('Magic damage needs a target.'))
    target_turn = None
    if cmd.blocked:
        if target is None or not cmd.damage:
            raise RuleError(_('Only magic damage on a target can be blocked (I-L439).'))
        if "Blocage" not in target.skills or not target.shield:
            raise RuleError(_('{name} cannot block: a block needs the Blocage skill and a shield (I-L547).').format(name=target.name))
        if cmd.fight:
            target_turn = defend(find_fight(state, cmd.fight), target, "blocage", against_magic=True)
    acuity = {"hearing": "Acuité auditive", "smell": "Acuité olfactive"}.get(cmd.sense)
    reach = magic.check_reach(cmd.sense, cmd.distance, energie=caster.characteristics.get("E", 0),
                              acuity=acuity_pct(caster, acuity) if acuity else 0, settings=settings)
    res = magic.resistance(spell, stealth=cmd.stealth, spotted=cmd.spotted, accept=cmd.accept,
                           self_target=target is None or target.id == caster.id) if target is not None else "none"
    level = magic_level if settings.spell_threshold_level_source == "magic" else cmd.cast_level
    if cmd.fight and not content.pack.pp_by_combination_size:
        raise content.missing(_('The pp per combination size'), "I-L198-203")
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
    if (target is not None and cmd.damage and launch.outcome != "counter" and res != "refused" and cmd.blocked
            and target.shield):  # a block without a shield was refused above (I-L547)
        shield = content.entry("shields", target.shield)
        ps = target.shield_ps if target.shield_ps is not None else shield.ps
        b = magic.block_magic(cmd.damage, srm=shield.srm, shield_ps=ps, vol=stat(target, "Vol"), settings=settings)
        wound = combat.apply_pv_loss(target.pv, int(b.to_character), "", destiny_points=target.destiny_points)
        fields = dict(raw_damage=cmd.damage, pv_lost=wound.pv_lost, pv_after=wound.pv_after, dead=wound.dead,
                      shield=shield.name, shield_ps_lost=ps - b.shield_ps_after, shield_ps_after=b.shield_ps_after,
                      shield_destroyed=b.destroyed)
    elif target is not None and cmd.damage and launch.outcome != "counter" and res != "refused":
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
                             concentrated=cmd.concentrate, position=ctx.position + 1,
                             cast_at=state.clock)
        _held, stacking = spellbook.stack(holder, active)
        holder_id = holder.id
    ev = SpellCast(caster=caster.id, fight=cmd.fight, magic=magic_name, spell=spell.name, cast_level=cmd.cast_level,
                   magic_level=magic_level, threshold_level=level, cost=cost, rolls=rolls,
                   outcome=launch.outcome, refund_pct=launch.refund_pct, refund_pm=refund_pm, pm_after=pm_after,
                   counter_effect=launch.counter_effect,
                   effective_level=eff_level, pp_gained=pp,
                   magic_level_after=max(level_after, magic_level), target=cmd.target,
                   action=cmd.action if cmd.fight else "", turn_after=turn_after, target_turn_after=target_turn,
                   secondaries=seconds,
                   on_primary=cmd.on_primary, sense=cmd.sense, distance=cmd.distance, reach=plain(reach),
                   level_bonus=bonus, superior_effect=magic.superior_effect_active(spell, magic_level),
                   resistance=res, resisted=resisted, casts_out_of_combat_after=counter_after,
                   active=active if stacking != "cancelled" else None, holder=holder_id, stacking=stacking, **fields)
    stream = fight_stream(cmd.fight) if cmd.fight else stream_of(caster.id)
    return [Emit(stream, ev)]


def decide_end(state: IllerganState, cmd: EndFight, ctx: Context) -> list[Emit]:
    fight = find_fight(state, cmd.fight)
    last = max((a.last_turn for c in fight.participants for a in state.characters[c].afflictions
                if a.fight == fight.name), default=fight.turn)
    ticks = _bleeding(state, fight, range(fight.turn + 1, last + 1)) if ctx.settings.riders_at_fight_end == "at_end" else []
    return [Emit(fight_stream(fight.name), e) for e in ticks] + [Emit(fight_stream(fight.name), FightEnded(fight=fight.name))]


