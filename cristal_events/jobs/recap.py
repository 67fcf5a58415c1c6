"""Session recaps in two views, written from the log: the game master's (everything) and the players'.

``cristal recap --session N --view players|gm [--format text|md] [--out DIR]`` tells one session event
by event in the rulesets' words (the replay's narration, :mod:`.walk`), with who was there, its fights,
its in-game and real dates and its receipt. The **players' view** leaves out:

* the game master's private notes (``note --private``: ``NoteRecorded.private``);
* the foes' numbers: a command that involves a foe (a stream, a field or a name of one of its events
  is the foe's id) is told with every number hidden (``…``), its dice record too: a foe's PV, IT,
  DP, attributes, and what they could be worked out from (a damage and the PV left give the PV
  before). Names, dice expressions (``1d20``) and words stay;
* the dice records still sealed (:func:`cristal_events.jobs.dice_report.sealed_positions`, the one
  hook for secret rolls; empty while the log has none).

**Who is a foe.** A player character is a character of the ruleset's state that names a player
(``--player``); in a campaign where no character names one, every character that is not a creature
(Illergan's ``kind``) is. Every other participant is a foe: a creature, a character without a player,
a fighter the game master brought into a fight by its numbers alone (``--stat york:DP=10``).

``--format md`` writes an Obsidian vault (:mod:`.vault`): one note per session, character and fight.

Python API::

    recap = build(camp, session=3, view="players")      # Recap
    text_lines(recap)                                     # the text view
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

from ..events import NoteRecorded
from ..i18n import N_, _
from ..records import RecordedEvent
from . import dice_report
from .exports import combats
from .page import vital
from .walk import CHARACTER_STREAM, Step, named_in, resolve_range, sessions, walk

View = Literal["players", "gm"]
VIEWS = ("players", "gm")
FIGHT_STREAMS = ("combat:", "fight:")
HIDDEN = "…"
# a number standing alone (not inside a word such as 1d20 or a name's "Orc2"), with its sign and decimals
_NUMBER = re.compile(r"(?<![\w])[-+−]?\d+(?:[.,]\d+)?(?![\w])")


def mask_numbers(text: str, keep: Iterable[str] = ()) -> str:
    """``text`` with every number hidden, except inside the strings of ``keep`` (names and ids)."""
    names = sorted({k for k in keep if k}, key=len, reverse=True)
    if not names:
        return _NUMBER.sub(HIDDEN, text)
    parts = re.split("(" + "|".join(map(re.escape, names)) + ")", text)
    return "".join(p if i % 2 else _NUMBER.sub(HIDDEN, p) for i, p in enumerate(parts))


@dataclass
class Line:
    position: int
    actor: str
    text: str
    fight: str | None = None  # the key of the fight the command belongs to
    masked: bool = False


@dataclass
class Fight:
    key: str  # "f" + the position the fight started at (or was first seen at in the session)
    name: str
    stream: str
    start: int
    end: int
    participants: list[str] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)
    # the book's table (GM view only): (position, actor, summary, duration, IT before, IT after)
    table: list[tuple[int, str, str, int, dict[str, int], dict[str, int]]] = field(default_factory=list)


@dataclass
class Person:
    id: str
    name: str
    foe: bool
    player: str = ""
    numbers: dict[str, Any] = field(default_factory=dict)  # shown only where the view allows


@dataclass
class Recap:
    campaign_id: str
    campaign: str
    ruleset: str
    view: View
    number: int
    title: str
    in_game_date: str
    real_start: str
    real_end: str
    receipt: str
    people: dict[str, Person]
    fights: list[Fight]
    lines: list[Line]
    left_out: dict[str, int]

    @property
    def name(self) -> str:
        return self.title or _("Session {number}").format(number=self.number)

    def shown(self, cid: str) -> str:
        p = self.people.get(cid)
        return p.name if p else cid


def player_characters(chars: dict[str, Any]) -> set[str]:
    """The player characters among ``chars`` (see the module's text)."""
    named = {cid for cid, c in chars.items() if str(getattr(c, "player", "") or "")}
    if named:
        return named
    return {cid for cid, c in chars.items() if getattr(c, "kind", "hero") != "creature"}


def _fighters(payload: Any) -> list[str]:
    out: list[str] = []
    if isinstance(payload, dict):
        for f in payload.get("fighters", []) or []:
            if isinstance(f, dict) and isinstance(f.get("id"), str):
                out.append(f["id"])
        for f in payload.get("participants", []) or []:
            if isinstance(f, str):
                out.append(f)
    return out


def _stats(payload: Any) -> dict[str, dict[str, Any]]:
    """The numbers a fight's start gave its fighters (``--stat``), by fighter."""
    out: dict[str, dict[str, Any]] = {}
    if isinstance(payload, dict):
        for f in payload.get("fighters", []) or []:
            if isinstance(f, dict) and isinstance(f.get("id"), str) and isinstance(f.get("stats"), dict) and f["stats"]:
                out[f["id"]] = dict(f["stats"])
    return out


def _mentions(rec: RecordedEvent, ids: set[str]) -> set[str]:
    found: dict[str, None] = {}
    if rec.stream.startswith(CHARACTER_STREAM) and rec.stream[len(CHARACTER_STREAM):] in ids:
        found[rec.stream[len(CHARACTER_STREAM):]] = None
    named_in(rec.payload, ids, found)
    return set(found)


def _fight_of(rec: RecordedEvent) -> str | None:
    for prefix in FIGHT_STREAMS:
        if rec.stream.startswith(prefix):
            return rec.stream
    return None


def build(camp: Any, *, session: int, view: View) -> Recap:
    """The recap of one session in one view (see the module's text)."""
    after, end = resolve_range(camp, session=session)
    steps: list[Step] = list(walk(camp, after=after, until=end))
    info = sessions(camp).get(session)
    rules = steps[-1].after.rules
    chars = camp.ruleset.characters(rules)
    pcs = player_characters(chars)
    sealed = dice_report.sealed_positions([s.rec for s in steps])  # the one hook for secret rolls

    # every participant: characters the session concerns, and every fighter of its fights
    seen: dict[str, None] = {}
    stats: dict[str, dict[str, Any]] = {}
    for s in steps:
        seen.update(dict.fromkeys(s.characters))
        if _fight_of(s.rec):
            payload = msgspec.json.decode(s.rec.payload)
            seen.update(dict.fromkeys(_fighters(payload)))
            stats.update(_stats(payload))
    people: dict[str, Person] = {}
    for cid in seen:
        c = chars.get(cid)
        # a fighter known by its numbers only is named by its id, as the narration does (york: York)
        name = str(getattr(c, "name", "") or cid) if c is not None else cid[:1].upper() + cid[1:]
        numbers: dict[str, Any] = {}
        if c is not None:
            for key in ("PV", "PM", "XP"):
                value = vital(c, key)
                if value is not None:
                    numbers[key] = value
        numbers.update(stats.get(cid, {}))
        people[cid] = Person(id=cid, name=name, foe=cid not in pcs, player=str(getattr(c, "player", "") or ""),
                             numbers=numbers)
    foes = {cid for cid, p in people.items() if p.foe}
    keep = [p.name for p in people.values()] + list(people)

    # commands: which fight each belongs to, whether it involves a foe
    by_command: dict[str, list[Step]] = {}
    for s in steps:
        by_command.setdefault(s.rec.correlation_id or s.rec.event_id, []).append(s)
    fights: dict[str, Fight] = {}
    open_fight: dict[str, str] = {}  # stream -> key
    command_fight: dict[str, str] = {}
    command_foe: dict[str, bool] = {}
    for key, group in by_command.items():
        command_foe[key] = any(_mentions(s.rec, foes) for s in group)
        for s in group:
            stream = _fight_of(s.rec)
            if stream is None:
                continue
            fkey = open_fight.get(stream)
            if fkey is None or s.rec.type.endswith(".started"):
                fkey = f"f{s.rec.position}"
                open_fight[stream] = fkey
                fights[fkey] = Fight(key=fkey, name=stream.split(":", 1)[1], stream=stream, start=s.rec.position,
                                     end=s.rec.position)
            f = fights[fkey]
            f.end = max(f.end, s.rec.position)
            for cid in [*_fighters(msgspec.json.decode(s.rec.payload)), *s.characters]:
                if cid in people and cid not in f.participants:
                    f.participants.append(cid)
            command_fight[key] = fkey
            if s.rec.type.endswith(".ended"):
                open_fight.pop(stream, None)

    left_out = {"private_notes": 0, "sealed": 0, "masked": 0}
    lines: list[Line] = []
    for s in steps:
        rec = s.rec
        key = rec.correlation_id or rec.event_id
        text = s.told
        masked = False
        if view == "players":
            if isinstance(rec.event, NoteRecorded) and rec.event.private:
                left_out["private_notes"] += 1
                continue
            if rec.position in sealed:
                left_out["sealed"] += 1
                continue
            if command_foe.get(key):
                masked_text = mask_numbers(text, keep)
                masked = masked_text != text
                left_out["masked"] += masked
                text = masked_text
        line = Line(rec.position, rec.actor, text, command_fight.get(key), masked)
        lines.append(line)
        if line.fight is not None:
            fights[line.fight].lines.append(line)
    if view == "gm":
        for v in combats(steps):
            for f in fights.values():
                if f.stream == f"combat:{v.name}":
                    f.table += [(r.position, r.actor, r.summary, r.duration, r.it_before, r.it_after)
                                for r in v.rows if f.start <= r.position <= f.end]
    else:
        for p in people.values():
            if p.foe:
                p.numbers = {}
    receipt = camp.session_receipts().get(session)
    return Recap(campaign_id=camp.header.campaign_id, campaign=camp.header.name, ruleset=camp.ruleset.title,
                 view=view, number=session, title=info.title if info else "",
                 in_game_date=info.in_game_date if info else "", real_start=steps[0].rec.recorded_at,
                 real_end=steps[-1].rec.recorded_at, receipt=str(receipt) if receipt else "", people=people,
                 fights=list(fights.values()), lines=lines, left_out=left_out)


# ----------------------------------------------------------------------------------------- the text view
VIEW_LABEL = {"players": N_("players' view"), "gm": N_("GM's view")}


def real_span(recap: Recap) -> str:
    start, end = recap.real_start, recap.real_end
    day = start[:10]
    return f"{day} {start[11:16]}–{end[11:16] if end[:10] == day else end[:16].replace('T', ' ')} UTC"


def numbers_text(numbers: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in numbers.items())


def person_text(recap: Recap, p: Person) -> str:
    extra = [_("played by {player}").format(player=p.player)] if p.player else []
    if p.numbers:
        extra.append(numbers_text(p.numbers))
    return p.name + (f" ({_('; ').join(extra)})" if extra else "")


def text_lines(recap: Recap) -> list[str]:
    """The recap as plain text lines (the caller shows them through ``echo``, control characters visible)."""
    date = f" — {recap.in_game_date}" if recap.in_game_date else ""
    title = (_("Session {number}: {title}").format(number=recap.number, title=recap.title) if recap.title
             else _("Session {number}").format(number=recap.number))
    out = [f"{title}{date} ({_(VIEW_LABEL[recap.view])})",
           _("Played on {span}").format(span=real_span(recap))
           + (_(" · Receipt: {receipt}").format(receipt=recap.receipt) if recap.receipt else _(" · session under way"))]
    pcs = [p for p in recap.people.values() if not p.foe]
    foes = [p for p in recap.people.values() if p.foe]
    if pcs:
        out.append(_("Characters: ") + ", ".join(person_text(recap, p) for p in pcs))
    if foes:
        out.append(_("Foes: ") + ", ".join(person_text(recap, p) for p in foes))
    if recap.fights:
        out.append(_("Fights: ") + ", ".join(f"« {f.name} » (#{f.start}–#{f.end})" for f in recap.fights))
    out.append("")
    for line in recap.lines:
        out.append(f"#{line.position:<5} {line.text}")
    for f in recap.fights:
        if not f.table:
            continue
        out += ["", _("Fight « {name} »: Time Index").format(name=f.name)]
        for pos, actor, _summary, duration, before, after in f.table:
            its = ", ".join(f"{recap.shown(c)} {before.get(c, '')}→{after.get(c, '')}" for c in after)
            out.append(f"  #{pos:<5} " + _("{actor} +{duration}: IT {its}").format(
                actor=recap.shown(actor), duration=duration, its=its))
    if recap.view == "players" and any(recap.left_out.values()):
        lo = recap.left_out
        out += ["", _("(Players' view: {notes} private note(s) and {sealed} secret roll(s) left out; the foes' "
                      "numbers hidden in {masked} line(s).)").format(notes=lo["private_notes"], sealed=lo["sealed"],
                                                                     masked=lo["masked"])]
    return out


def recap_json(recap: Recap) -> dict[str, Any]:
    """The recap as plain data (``recap --json`` with the text format)."""
    return {
        "session": recap.number, "view": recap.view, "title": recap.title, "in_game_date": recap.in_game_date,
        "real_start": recap.real_start, "real_end": recap.real_end, "receipt": recap.receipt,
        "characters": [{"id": p.id, "name": p.name, "foe": p.foe, "player": p.player, "numbers": p.numbers}
                       for p in recap.people.values()],
        "fights": [{"key": f.key, "name": f.name, "start": f.start, "end": f.end, "participants": f.participants}
                   for f in recap.fights],
        "events": [{"position": line.position, "actor": line.actor, "text": line.text, "fight": line.fight}
                   for line in recap.lines],
        "left_out": recap.left_out,
    }
