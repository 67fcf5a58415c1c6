"""The fight panel of an Illergan campaign, from what its ``--json`` reads print.

An Illergan fight is its stream ``fight:NAME`` in the log (the start, each turn's initiative, each
action's ``turn_after``, as ``log --json`` prints them) and its fighters are the party (``characters
--json``: PV, PM, destiny points, death); Illergan's ``combat show NAME`` (cli/illergan/play.py)
prints this panel, and the page and ``/api/combat/NAME`` read it there. :func:`panel`
folds the first into the shape the page draws: the turn, the initiative order, who acts next (the
first of the order who may act and still has a major action, I-L241) and each fighter's state.
"""

from __future__ import annotations

from typing import Any

import click

from ..i18n import _, ngettext

COMMANDS: list[click.Command] = []  # every module of cristal_events.cli lists its commands; this one has none

#: a turn's budget before any action (I-L241): the shape of ``Turn.budget`` in the events
FRESH = {"major": 1, "minor": 1, "skill": 1, "extra_major": 0}


def _turns_after(payload: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The fighters' turns an event of the fight leaves (``turn_after`` of the one who acted)."""
    kind = payload.get("type")
    out: dict[str, Any] = {}
    if kind == "fight.attack_resolved":
        out[payload["attacker"]] = payload.get("turn_after")
        if payload.get("defender"):
            out[payload["defender"]] = payload.get("defender_turn_after")
    elif kind in ("fight.action_taken", "fight.defence_used"):
        out[payload["character"]] = payload.get("turn_after")
    elif kind == "magic.spell_cast":
        out[payload["caster"]] = payload.get("turn_after")
    return {c: t for c, t in out.items() if t}


def _actions(budget: dict[str, Any]) -> str:
    parts = []
    majors = budget.get("major", 0) + budget.get("extra_major", 0)
    minors, skills = budget.get("minor", 0), budget.get("skill", 0)
    if majors:
        parts.append(ngettext("{n} major", "{n} majors", majors).format(n=majors))
    if minors:
        parts.append(ngettext("{n} minor", "{n} minors", minors).format(n=minors))
    if skills:
        parts.append(ngettext("{n} skill", "{n} skills", skills).format(n=skills))
    return ", ".join(parts) or _("no action")


def panel(name: str, events: list[dict[str, Any]], party: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The fight ``name`` as the page shows it, or None when it has not started or has ended."""
    started = [e for e in events if e["type"] == "fight.started"]
    if not started or events[-1]["type"] == "fight.ended":
        return None
    begun = max(e["position"] for e in started)
    events = [e for e in events if e["position"] >= begun]  # a fight of the same name run again
    participants = list(started[-1]["payload"]["participants"])
    turn, order, scores, acts = 0, [], {}, set(participants)
    budgets: dict[str, dict[str, Any]] = {c: dict(FRESH) for c in participants}
    for e in events:
        p = e["payload"]
        if e["type"] == "fight.initiative_rolled":
            turn, order = p["turn"], list(p["order"])
            scores = {x["character"]: x["score"] for x in p["entries"]}
            acts = {x["character"] for x in p["entries"] if x["acts"]}
            turns = p.get("turns") or {}
            budgets = {c: dict(turns[c]["budget"]) if c in turns else dict(FRESH) for c in participants}
        for c, t in _turns_after(p).items():
            budgets[c] = dict(t["budget"])
    sheets = {c["id"]: c for c in party}

    def may_act(c: str) -> bool:
        b = budgets.get(c, FRESH)
        return (turn > 0 and c in acts and not sheets.get(c, {}).get("dead", False)
                and b.get("major", 0) + b.get("extra_major", 0) > 0)

    upcoming = [c for c in order if may_act(c)]
    nxt = upcoming[0] if upcoming else None
    ranked = [*order, *[c for c in participants if c not in order]]
    fighters = []
    for c in ranked:
        sheet = sheets.get(c, {})
        fighters.append({
            "id": c, "name": sheet.get("name", c), "score": scores.get(c), "acts": turn > 0 and c in acts,
            "pv": sheet.get("pv"), "pv_max": sheet.get("pv_max"), "pm": sheet.get("pm"),
            "destiny_points": sheet.get("destiny_points"), "dead": sheet.get("dead", False),
            "actions": _actions(budgets.get(c, FRESH)) if turn > 0 and c in acts else _("no action this turn"),
            "next": c == nxt})
    if turn == 0:
        waiting = _("No initiative yet: « combat initiative » opens the first turn.")
    elif nxt is None:
        waiting = _("Turn {turn} over: « combat initiative » opens the next.").format(turn=turn)
    else:
        waiting = ""
    return {"name": name, "ruleset": "illergan", "turn": turn, "participants": fighters, "next": nxt,
            "waiting": waiting}
