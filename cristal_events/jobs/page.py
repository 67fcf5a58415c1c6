"""The timeline in HTML: a small self-contained site (``-o FOLDER``) or, on standard output, one page.

The site (:func:`write_site`) is an ``index.html`` (the sessions, links), the characters' list
(``personnages.html``), the dice page (``des.html``: the GM's dice, the fairness report), one page
per session (its events told in the book's terms, each event's state changes folded in a
``<details>`` disclosure, each combat as the book's table) and one page per character (its XP and
PV charts). A page of a big campaign stays small, so it opens at once; the index of a 200,000-event
campaign is about 130 kilobytes. The one page (:func:`write_html`) holds the same sections in
one file, for a small campaign, a pipe or the web table's download.

No script, no network: each page carries its CSS inline and a Content-Security-Policy that forbids
scripts, and every text a user typed goes through :func:`esc`, so a character named
``<script>alert(1)</script>`` is shown as text and never runs.
"""

from __future__ import annotations

import bisect
import hashlib
import html as _html
import math
import string as _string
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import msgspec

from .. import cycles
from ..display import visible
from ..i18n import _, current, ngettext
from ..records import RecordedEvent
from ..xp_ledger import LedgerEntry
from . import site_walk
from .dice_report import dice_report, html_section
from .diff import Change, render_change
from .exports import CombatViews, fudge_record_lines, xp_by_session
from .site_walk import StepLike as Step
from .walk import check_character, sessions

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
CSS = """
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;color:#222;background:#fdfcf8}
h1{margin-bottom:.2rem}.sub{color:#666;margin-top:0}nav{margin:.6rem 0;color:#666}nav a{margin-right:1rem}
.session{border-left:4px solid #6a4;padding:.2rem 1rem;margin:1.5rem 0;background:#fff}
.session h2{margin:.4rem 0}.meta{color:#555}
ol.events{list-style:none;padding-left:0}ol.events li{margin:.3rem 0}
.pos{font-family:monospace;color:#888;margin-right:.4rem}.actor{font-size:.8rem;background:#eee;border-radius:3px;padding:0 .3rem;margin-right:.4rem}
details.changes{margin:.1rem 0 .3rem 4rem;color:#555;font-size:.85rem}details.changes summary{cursor:pointer;color:#888}
details.changes ul{margin:.2rem 0;font-family:monospace}
table{border-collapse:collapse;margin:.6rem 0;font-size:.9rem}th,td{border:1px solid #ccc;padding:.2rem .5rem;text-align:left}
th{background:#f0efe8}td.num{text-align:right;font-family:monospace}
.charts{display:flex;flex-wrap:wrap;gap:1rem}.chart{background:#fff;border:1px solid #ddd;padding:.3rem}
td.receipt{max-width:14rem;word-break:break-all;font-size:.75rem}.nochart{color:#555;font-style:italic}svg text{font-size:10px;fill:#444}svg .mark{stroke:#bbb;stroke-dasharray:2,3}
"""
MAX_POINTS = 300  # a chart draws at most this many points (the extremes of each stretch are kept)
_Progress = Callable[[int, int], None]


def esc(text: Any) -> str:
    """HTML-escape any value (quotes included, so it is safe in attributes too), its control and
    format characters shown visibly (:func:`cristal_events.display.visible`).

    ``html.escape(visible(text), quote=True)`` written out in one function: the same five
    replacements in the same order, :func:`visible` called only for a text that is not printable
    (the usual one is): two Python calls fewer, and a site of 1M events makes about five million
    (tested against the two calls)."""
    s = text if isinstance(text, str) else str(text)
    if not s.isprintable():
        s = visible(s)
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;").replace(
        "'", "&#x27;")


def words(text: str) -> str:
    """One of our own translated sentences in a text node: ``<>&`` escaped, apostrophes kept as typed
    (the French pages read ``l'état``, as they always did)."""
    return _html.escape(text, quote=False)


def vital(character: Any, key: str) -> int | None:
    """A variable state (``PV``, ``XP`` ...) of a character object, wherever its ruleset keeps it."""
    for holder in (character, getattr(character, "variable", None)):
        if holder is None:
            continue
        for name in (key, key.lower()):
            value = holder.get(name) if isinstance(holder, dict) else getattr(holder, name, None)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
    return None


def series(camp: Any, steps: list[Step], key: str) -> dict[str, list[tuple[int, int]]]:
    """Per character, the points (position, value) where ``key`` changed."""
    out: dict[str, list[tuple[int, int]]] = {}
    for s in steps:
        _add_points(camp, s, key, out)
    return out


def _add_points(camp: Any, s: Step, key: str, out: dict[str, list[tuple[int, int]]],
                characters: Callable[[Any], dict[str, Any]] | None = None) -> None:
    if not s.characters:
        return
    chars = (characters or camp.ruleset.characters)(s.after.rules)
    for cid in s.characters:
        char = chars.get(cid)
        value = vital(char, key) if char is not None else None
        if value is None:
            continue
        pts = out.setdefault(cid, [])
        if not pts or pts[-1][1] != value:
            pts.append((s.rec.position, value))


def xp_series(ledger: Iterable[LedgerEntry]) -> dict[str, list[tuple[int, int]]]:
    """{character: [(position, balance after)]}: the XP chart of each character, from the ledger."""
    out: dict[str, list[tuple[int, int]]] = {}
    for e in sorted(ledger, key=lambda e: e.position):
        if e.balance_after is not None:
            out.setdefault(e.character, []).append((e.position, e.balance_after))
    return out


def thin(points: list[tuple[int, int]], limit: int = MAX_POINTS) -> list[tuple[int, int]]:
    """At most about ``limit`` points: the lowest and the highest of each stretch, in order, and the last."""
    if len(points) <= limit:
        return points
    size = math.ceil(len(points) / (limit // 2))
    out: list[tuple[int, int]] = []
    for i in range(0, len(points), size):
        chunk = points[i:i + size]
        lo, hi = min(chunk, key=lambda p: p[1]), max(chunk, key=lambda p: p[1])
        out.extend(sorted({lo, hi}))
    if out[-1] != points[-1]:
        out.append(points[-1])
    return out


def nice_ticks(lo: int, hi: int, count: int = 5) -> list[int]:
    """Round values from ``lo`` to ``hi`` for an axis (0, 50, 100 ...)."""
    span = max(hi - lo, 1)
    raw = span / count
    mag = 10 ** math.floor(math.log10(raw)) if raw >= 1 else 1
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    step = max(int(step), 1)
    first = math.ceil(lo / step) * step
    return list(range(first, hi + 1, step))


def chart_or_sentence(title: str, points: list[tuple[int, int]], marks: Sequence[tuple[int, int]], *,
                      colour: str, starts: Sequence[int] | None = None) -> str:
    """The chart of ``points``, or a sentence when fewer than two distinct points would make one."""
    if len({p for p, _ in points}) < 2 or len({v for _, v in points}) < 2:
        if not points:
            return ""
        value, first, last = points[-1][1], points[0][0], points[-1][0]
        where = (_("at #{first}").format(first=first) if first == last
                 else _("from #{first} to #{last}").format(first=first, last=last))
        text = _("{title}: {value} ({where}, no change to draw).").format(title=title, value=value, where=where)
        return f'<p class="nochart">{esc(text)}</p>'
    return svg_chart(title, points, marks=marks, colour=colour, starts=starts)


def svg_chart(title: str, points: list[tuple[int, int]], *, marks: Sequence[tuple[int, int]] = (),
              width: int = 420, height: int = 190, colour: str = "#c33",
              starts: Sequence[int] | None = None) -> str:
    """A step line of ``points`` (position, value) as inline SVG: a value axis with round ticks, the log
    positions along the bottom, a dashed mark where each session (``marks``: number, first position)
    begins, labelled S1, S2 ... (thinned when there are many). ``starts``: the marks' positions in
    ascending order, when the caller has them (the site's 4,572 charts of the 1M campaign each
    looked through its 1,456 marks: 0.8 s under cProfile); the marks of the chart's stretch are then
    found by bisection, the same marks."""
    points = thin(points)
    left, right, top, bottom = 44, 12, 30, 34
    xs = [p for p, _ in points]
    ys = [v for _, v in points]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(0, min(ys)), max(max(ys), 1)
    sx = (width - left - right) / max(x1 - x0, 1)
    sy = (height - top - bottom) / max(y1 - y0, 1)

    def X(p: int) -> float:
        return round(left + (p - x0) * sx, 1)

    def Y(v: int) -> float:
        return round(height - bottom - (v - y0) * sy, 1)

    path: list[str] = []
    for i, (p, v) in enumerate(points):
        if i:
            path.append(f"{X(p)},{Y(points[i - 1][1])}")
        path.append(f"{X(p)},{Y(v)}")
    if starts is not None:
        lo = bisect.bisect_left(starts, x0)
        inside, started = list(marks[lo:bisect.bisect_right(starts, x1)]), marks[lo - 1:lo] if lo else []
    else:
        inside = [(n, p) for n, p in marks if x0 <= p <= x1]
        started = [(n, p) for n, p in marks if p < x0]
    if started and (not inside or inside[0][1] > x0):  # the session the line starts in, at its left end
        inside.insert(0, (started[-1][0], x0))
    every = max(1, math.ceil(len(inside) / 8))
    lines = "".join(f'<line class="mark" x1="{X(p)}" y1="{top}" x2="{X(p)}" y2="{height - bottom}"/>'
                    for n, p in inside) if len(inside) <= 60 else ""
    labels = "".join(f'<text x="{X(p)}" y="{top - 4}" text-anchor="middle">S{n}</text>'
                     for i, (n, p) in enumerate(inside) if i % every == 0)
    yticks = "".join(f'<line x1="{left - 3}" y1="{Y(t)}" x2="{left}" y2="{Y(t)}" stroke="#999"/>'
                     f'<text x="{left - 5}" y="{Y(t) + 3}" text-anchor="end">{t}</text>'
                     for t in nice_ticks(y0, y1))
    dots = ("".join(f'<circle cx="{X(p)}" cy="{Y(v)}" r="2.5" fill="{colour}"><title>#{p} : {v}</title></circle>'
                    for p, v in points) if len(points) <= 40 else "")
    return (
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img"><title>{esc(title)}</title>'
        f'<text x="{left}" y="12" font-weight="bold">{esc(title)}</text>{lines}{labels}'
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="#999"/>'
        f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" stroke="#999"/>{yticks}'
        f'<text x="{left}" y="{height - bottom + 13}">#{x0}</text>'
        f'<text x="{width - right}" y="{height - bottom + 13}" text-anchor="end">#{x1}</text>'
        f'<text x="{(left + width - right) // 2}" y="{height - 4}" text-anchor="middle">'
        f'{esc(_("position in the log (S: start of a session)"))}</text>'
        f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{" ".join(path)}"/>{dots}</svg>'
    )


# ------------------------------------------------------------------------------------ sections
class _ChangeLines:
    """:func:`.diff.render_change` of the usual change (two numbers or strings) with its sentence
    translated once per session page rather than once per change (looking the language up costs more
    than the line); any other change goes to
    :func:`.diff.render_change` itself (the same text either way: tested).

    :meth:`item` is ``<li>`` + :func:`esc` of that line + ``</li>``, made from parts escaped once a
    page: :func:`esc` maps each character on its own (:func:`~cristal_events.display.visible` and the
    five replacements alike), so the escape of a line is the escapes of its parts put together; the
    sentence's own words are escaped once, a path once per page (a fight's paths repeat at each of
    its events), a value once per page, a number not at all (its digits and sign need none)."""

    def __init__(self) -> None:
        self.arrow = _("{path}: {before} → {after}")
        self.yes, self.no = _("yes"), _("no")
        self.counts: dict[int, str] = {}
        self.escaped: dict[str, str] = {}
        self.values: dict[str, str] = {}  # a value's escape, cut at 60 characters
        self.paths: dict[tuple[Any, ...], str] = {}
        self.openings: dict[int, str] = {}
        # the sentence's words around its three fields, escaped, when they come in that order (the
        # fast path of :meth:`item`); otherwise :meth:`item` escapes the whole line
        self.parts: tuple[str, str, str, str] | None = None
        pieces = list(_string.Formatter().parse(self.arrow))
        fields = [(name, spec, conv) for _lit, name, spec, conv in pieces if name is not None]
        if fields == [("path", "", None), ("before", "", None), ("after", "", None)]:
            literals = [lit for lit, *_rest in pieces] + [""]
            self.parts = (esc(literals[0]), esc(literals[1]), esc(literals[2]), esc(literals[3]))
        self.words = {True: esc(self.yes), False: esc(self.no)}

    def esc(self, text: str) -> str:
        """:func:`esc` of a text that repeats on the page (an event's type, its actor), kept."""
        done = self.escaped.get(text)
        if done is None:
            done = self.escaped[text] = esc(text)
        return done

    def count(self, n: int) -> str:
        """« 3 changes of the state », translated once per number."""
        text = self.counts.get(n)
        if text is None:
            text = self.counts[n] = ngettext("{count} change of the state", "{count} changes of the state",
                                             n).format(count=n)
        return text

    def opening(self, n: int) -> str:
        """The disclosure of ``n`` state changes up to its list's first item, made once per number."""
        text = self.openings.get(n)
        if text is None:
            text = self.openings[n] = f'<details class="changes"><summary>{words(self.count(n))}</summary><ul>'
        return text

    def value(self, v: Any) -> str | None:
        t = type(v)
        if t is int:
            return str(v)
        if t is str:
            return v if len(v) <= 60 else v[:59] + "…"
        if v is None:
            return "—"
        if t is bool:
            return self.yes if v else self.no
        return None

    def value_html(self, v: Any) -> str | None:
        """:func:`esc` of :meth:`value`."""
        t = type(v)
        if t is int:
            return str(v)  # digits and a minus sign: nothing to escape
        if t is str:
            done = self.values.get(v)
            if done is None:
                done = self.values[v] = esc(v if len(v) <= 60 else v[:59] + "…")
            return done
        if v is None:
            return "—"
        if t is bool:
            return self.words[v]
        return None

    def __call__(self, change: Change) -> str:
        before, after = change["before"], change["after"]
        b, a = self.value(before), self.value(after)
        if b is None or a is None or (before is None and after is None):
            return render_change(change)
        path = ".".join(map(str, change["path"]))  # str() of a str is itself
        return self.arrow.format(path=path, before=b, after=a)

    def path_html(self, path: list[Any]) -> str:
        """:func:`esc` of a change's path joined by dots, kept for a path of strings only (a tuple
        key that holds a number could equal another holding ``True`` or ``1.0``, which read otherwise;
        ``str.join`` refuses anything but a string)."""
        key = tuple(path)
        done = self.paths.get(key)
        if done is None:
            try:
                joined = ".".join(key)
            except TypeError:  # a list's index in it: not kept
                return esc(".".join(map(str, path)))
            done = self.paths[key] = esc(joined)
        return done

    def item(self, change: Change) -> str:
        """``<li>`` + :func:`esc` of the change's line (:meth:`__call__`) + ``</li>``."""
        before, after = change["before"], change["after"]
        parts = self.parts
        if parts is not None:
            b, a = self.value_html(before), self.value_html(after)
            if b is not None and a is not None and (before is not None or after is not None):
                return f"<li>{parts[0]}{self.path_html(change['path'])}{parts[1]}{b}{parts[2]}{a}{parts[3]}</li>"
        return f"<li>{esc(self(change))}</li>"


def _event_item(s: Step, line: _ChangeLines) -> str:
    changes = s.changes
    rec = s.rec
    position = rec.position
    if changes:
        item = line.item
        return (f'<li id="e{position}" data-type="{line.esc(rec.type)}"><span class="pos">#{position}</span>'
                f'<span class="actor">{line.esc(rec.actor)}</span><span class="summary">{esc(s.told)}</span>'
                f'{line.opening(len(changes))}{"".join([item(c) for c in changes])}</ul></details></li>')
    return (f'<li id="e{position}" data-type="{line.esc(rec.type)}"><span class="pos">#{position}</span>'
            f'<span class="actor">{line.esc(rec.actor)}</span><span class="summary">{esc(s.told)}</span></li>')


def _num(value: Any) -> str:
    """:func:`esc` of a table's cell, an integer written as it is (its digits need no escaping)."""
    return str(value) if type(value) is int else esc(value)


def _combat_table(view: Any, names: Mapping[str, str]) -> str:
    who = [esc(names.get(c, c)) for c in view.participants]
    head = ("<tr>" + f'<th colspan="{len(who)}">{_("IT before")}</th><th rowspan="2">{_("Turn of")}</th>'
            f'<th rowspan="2">{_("Action")}</th><th rowspan="2">{_("Duration")}</th>'
            f'<th colspan="{len(who)}">{_("IT after")}</th></tr>'
            "<tr>" + "".join(f"<th>{w}</th>" for w in who) * 2 + "</tr>")
    body = []
    for r in view.rows:
        before = "".join([f'<td class="num">{_num(r.it_before.get(c, ""))}</td>' for c in view.participants])
        after = "".join([f'<td class="num">{_num(r.it_after.get(c, ""))}</td>' for c in view.participants])
        body.append(f"<tr>{before}<td>{esc(names.get(r.actor, r.actor))}</td><td>{esc(r.told)}</td>"
                    f'<td class="num">+{esc(r.duration)}</td>{after}</tr>')
    return (f'<section class="combat"><h3>Combat : {esc(view.name)}</h3><table>{head}{"".join(body)}</table>'
            "</section>")


@dataclass
class SessionPage:
    """What the index says of one session (or one stretch of the log outside any session)."""

    key: int | None
    file: str
    heading: str
    date: str
    events: int
    first: int
    last: int
    present: list[str]
    trades: str
    receipt: str


@dataclass
class CharacterPage:
    cid: str
    file: str
    name: str
    first: int = 0
    last: int = 0
    xp: list[tuple[int, int]] = field(default_factory=list)
    pv: list[tuple[int, int]] = field(default_factory=list)


class Summary(msgspec.Struct, kw_only=True):
    """What the index and the characters' pages need of the sessions walked so far (the
    :class:`_Collector`'s material but the dice records, which the log holds): handed from a second
    process to the first, and kept in a site's cache for the next export (:mod:`.site_cache`)."""

    pv: dict[str, list[tuple[int, int]]] = {}
    xp_walk: dict[str, list[tuple[int, int]]] = {}
    seen: dict[str, list[int]] = {}
    names: dict[str, str] = {}
    pages: list[SessionPage] = []
    marks: list[tuple[int, int]] = []
    count: int = 0

    def take(self, later: Summary) -> None:
        """Add what a summary of the sessions after these holds, as :meth:`_Collector.take` does."""
        for mine, theirs in ((self.pv, later.pv), (self.xp_walk, later.xp_walk)):
            for cid, points in theirs.items():
                pts = mine.setdefault(cid, [])
                if pts and points and pts[-1][1] == points[0][1]:
                    points = points[1:]
                pts.extend(points)
        for cid, (first, last) in later.seen.items():
            self.seen.setdefault(cid, [first, last])[1] = last
        self.names.update(later.names)
        self.pages.extend(later.pages)
        self.marks.extend(later.marks)
        self.count += later.count


_SUMMARY = msgspec.msgpack.Decoder(Summary)
_ENCODE = msgspec.msgpack.Encoder().encode


def _groups(steps: Iterable[Step]) -> Iterator[tuple[int | None, list[Step]]]:
    """Consecutive steps grouped by session (None: outside any session), one group at a time."""
    key: object = object()
    group: list[Step] = []
    for s in steps:
        k = s.session.number if s.session else None
        if group and k != key:
            yield key, group  # type: ignore[misc]
            group = []
        key = k
        group.append(s)
    if group:
        yield key, group  # type: ignore[misc]


class _Current(Mapping[str, str]):
    """The names of the characters of one state (a session's last), read in the names every state
    seen so far gave them (:meth:`_Collector.session_names`): what ``{id: name}`` of that state was."""

    __slots__ = ("names", "chars")

    def __init__(self, names: dict[str, str], chars: dict[str, Any]):
        self.names, self.chars = names, chars

    def __getitem__(self, cid: str) -> str:
        if cid not in self.chars:
            raise KeyError(cid)
        return self.names[cid]

    def __iter__(self) -> Iterator[str]:
        return iter(self.chars)

    def __len__(self) -> int:
        return len(self.chars)


class _Section:
    """One session's section, built as its steps go by: each step is read once and let go, so a
    session's states are not all held until its page is written (holding them cost the walk about
    10 µs an event at 1M events: 2,000-character maps the collector never reads again)."""

    def __init__(self, key: int | None, first: Step):
        self.key, self.info = key, first.session
        self.first = self.last = first.rec.position
        self.count = 0
        self.present: dict[str, None] = {}
        self.line = _ChangeLines()  # the sentences of this page, translated once
        self.items: list[str] = []
        self.fights = CombatViews()
        self.after: Any = first.after

    def add(self, s: Step) -> None:
        self.present.update(dict.fromkeys(s.characters))
        self.items.append(_event_item(s, self.line))
        self.fights.add(s)
        self.last, self.after = s.rec.position, s.after
        self.count += 1

    def html(self, names: Mapping[str, str], xp: dict[Any, Any], receipts: dict[int, str],
             file: str) -> tuple[SessionPage, str]:
        key, info = self.key, self.info
        if key is None:
            heading = _("Outside any session")
        else:
            assert info is not None  # a group with a session number has its session
            heading = (_("Session {number}: {title}").format(number=key, title=info.title) if info.title
                       else _("Session {number}").format(number=key))
        date = info.in_game_date if info else ""
        who = [names.get(c, c) for c in self.present]
        trades = " ; ".join(f"{names.get(c, c)} +{e} / −{sp}" for c, (e, sp) in xp.get(key, {}).items())
        receipt = str(receipts[key]) if key in receipts else ""
        page = SessionPage(key, file, heading, date, self.count, self.first, self.last, who, trades, receipt)
        sid = f"s{key}" if key is not None else f"hors-session-{page.first}"
        meta = (f'<p class="meta">{esc(_("In-game date: {date}").format(date=date))}</p>' if date else "")
        meta += (f'<p class="meta">{esc(_("Present: {who}").format(who=", ".join(who)))}</p>' if who else "")
        meta += (f'<p class="meta">{esc(_("XP earned / spent: {trades}").format(trades=trades))}</p>' if trades else "")
        meta += (f'<p class="meta receipt">{esc(_("Receipt: "))}<code>{esc(receipt)}</code></p>' if receipt else "")
        positions = _("Positions #{first} to #{last}; the state changes of each event are folded under it.").format(
            first=page.first, last=page.last)
        body = [f'<section class="session" id="{sid}"><h2>{esc(heading)}</h2>{meta}'
                f'<p class="meta">{words(positions)}</p><ol class="events">']
        body.extend(self.items)
        body.append("</ol>")
        body.extend(_combat_table(v, names) for v in self.fights.views())
        body.append("</section>\n")
        return page, "".join(body)


def _head(title: str, css: str = "") -> str:
    return (f'<!DOCTYPE html>\n<html lang="{current()}"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{title}</title>'
            f"<style>{CSS}{css}</style></head><body>\n")


def _sessions_table(pages: list[SessionPage], link: Callable[[SessionPage], str]) -> str:
    rows = []
    for p in pages:
        rows.append(f'<tr><td><a href="{link(p)}">{esc(p.heading)}</a></td><td>{esc(p.date)}</td>'
                    f'<td class="num">{p.events}</td><td class="num">#{p.first}–#{p.last}</td>'
                    f'<td>{", ".join(esc(w) for w in p.present)}</td><td>{esc(p.trades)}</td>'
                    f'<td class="receipt"><code>{esc(p.receipt)}</code></td></tr>')
    heads = (_("Session"), _("In-game date"), _("Events"), _("Positions"), _("Present"), _("XP earned / spent"),
             _("Receipt"))
    return (f'<section id="sessions"><h2>{esc(_("Sessions"))}</h2><table><tr>'
            + "".join(f"<th>{esc(h)}</th>" for h in heads) + "</tr>"
            + "".join(rows) + "</table></section>\n")


def sparkline(title: str, points: list[tuple[int, int]], *, colour: str, width: int = 120, height: int = 26,
              compact: bool = False) -> str:
    """A small line of ``points`` for the characters' table (its lowest and highest values as text).

    ``compact`` (the site's characters' list, :data:`CHARACTERS_FILE`, which has every character:
    2,450 of them in the 1M generated campaign): at most about :data:`SPARK_POINTS` points, a point
    repeated at the same pixel written once, and the size and stroke left to the page's style sheet
    (:data:`SPARK_CSS`, the colour by class), so a row of the table stays near 570 bytes."""
    if len({p for p, _ in points}) < 2 or len({v for _, v in points}) < 2:
        return ""
    points = thin(points, SPARK_POINTS if compact else 40)
    x0, x1 = points[0][0], points[-1][0]
    ys = [v for _, v in points]
    lo, hi = min(ys), max(ys)
    sx, sy = (width - 2) / (x1 - x0), (height - 4) / (hi - lo)
    pixels = [f"{round(1 + (p - x0) * sx)},{round(height - 2 - (v - lo) * sy)}" for p, v in points]
    if compact:
        pixels = [xy for i, xy in enumerate(pixels) if i == 0 or xy != pixels[i - 1]]
    path = " ".join(pixels)
    label = esc(_('{title}: from {low} to {high}, #{first} to #{last}').format(title=title, low=lo, high=hi,
                                                                              first=x0, last=x1))
    if compact:
        kind = "xp" if colour == XP_COLOUR else "pv"
        return (f'<svg class="spark {kind}" viewBox="0 0 {width} {height}" role="img"><title>{label}</title>'
                f'<polyline points="{path}"/></svg>')
    return (f'<svg class="spark" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img">'
            f"<title>{label}</title>"
            f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{path}"/></svg>')


XP_COLOUR, PV_COLOUR = "#36a", "#c33"
SPARK_POINTS = 12  # the characters' list's sparklines: the character's page has the whole chart
#: the style of the characters' list's compact sparklines (:func:`sparkline`)
SPARK_CSS = (".spark{width:120px;height:26px}.spark polyline{fill:none;stroke-width:1.5}"
             f".spark.xp polyline{{stroke:{XP_COLOUR}}}.spark.pv polyline{{stroke:{PV_COLOUR}}}"
             "#characters td:nth-child(3),#characters td:nth-child(4),#characters td:nth-child(6)"
             "{text-align:right;font-family:monospace}")


def _characters_table(chars: list[CharacterPage], link: Callable[[CharacterPage], str] | None) -> str:
    rows = []
    compact = link is not None  # the site's characters' list (its head carries SPARK_CSS)
    for c in chars:
        name = f'<a href="{link(c)}">{esc(c.name)}</a>' if link else f'<a href="#c-{esc(c.cid)}">{esc(c.name)}</a>'
        xp = c.xp[-1][1] if c.xp else ""
        pv = c.pv[-1][1] if c.pv else ""
        num = "<td>" if compact else '<td class="num">'  # compact: the page's style sheet aligns them
        rows.append(f"<tr><td>{name}</td><td><code>{esc(c.cid)}</code></td>{num}#{c.first}–#{c.last}</td>"
                    f'{num}{xp}</td><td>{sparkline(c.name + " — XP", c.xp, colour=XP_COLOUR, compact=compact)}</td>'
                    f'{num}{pv}</td><td>{sparkline(c.name + " — PV", c.pv, colour=PV_COLOUR, compact=compact)}</td></tr>')
    return (f'<section id="characters"><h2>{esc(_("Characters"))}</h2><p class="meta">'
            + words(_("The name leads to the character's XP and PV curves, sessions marked.")) + "</p><table><tr>"
            f'<th>{esc(_("Name"))}</th><th>{esc(_("Id"))}</th><th>{esc(_("Positions"))}</th>'
            f'<th colspan="2">{esc(_("XP (last, evolution)"))}</th><th colspan="2">{esc(_("PV (last, evolution)"))}</th>'
            "</tr>" + "".join(rows) + "</table></section>\n")


def _charts(c: CharacterPage, marks: list[tuple[int, int]], starts: Sequence[int] | None = None) -> str:
    parts = [chart_or_sentence(f"{c.name} — XP", c.xp, marks, colour="#36a", starts=starts),
             chart_or_sentence(f"{c.name} — PV", c.pv, marks, colour="#c33", starts=starts)]
    return f'<div class="charts">{"".join(p for p in parts if p)}</div>'


#: the most different rolls the index's dice records share (:meth:`_Collector._kept`)
MAX_SHARED_ROLLS = 200_000
#: the records the dice sections read
_DICE_TYPES = frozenset({"dice.rolled", "roll.sealed", "roll.revealed", "result.overridden"})


class _Collector:
    """The index's material, gathered while the steps go by (the steps themselves are not kept)."""

    def __init__(self, camp: Any, ledger: list[LedgerEntry]):
        self.camp, self.ledger = camp, ledger
        self.chars = site_walk.Characters(camp)
        self.xp = xp_by_session(ledger)
        self.receipts = camp.session_receipts()
        self.xp_points = xp_series(ledger) if ledger else None
        self.pv: dict[str, list[tuple[int, int]]] = {}
        self.xp_walk: dict[str, list[tuple[int, int]]] = {}
        self.seen: dict[str, list[int]] = {}
        self.names: dict[str, str] = {}
        self.pages: list[SessionPage] = []
        self.marks: list[tuple[int, int]] = []
        self.count = 0
        # the records the game master's dice sections read (the fairness report and the overrides,
        # re-rolls and sealed rolls): only those, so a long campaign's steps are still not kept
        self.dice: list[RecordedEvent] = []
        # False: the steps' dice records are not kept (a second process's walk: the first reads them
        # from the log, ``dice_later``); (after, until): the positions whose records the log still holds
        self.keep_dice = True
        self.dice_later: tuple[int, int] | None = None
        self._rolls: dict[bytes, Any] = {}
        self._encode = msgspec.msgpack.Encoder().encode
        self._named: dict[str, Any] = {}  # the character object each name in self.names was read from
        # the character object each chart last read a value from: the same object, the same value
        self._pv_of: dict[str, Any] = {}
        self._xp_of: dict[str, Any] = {}

    def session_names(self, rules: Any) -> Mapping[str, str]:
        """The names of the characters of a session's last rules' state, and ``self.names`` updated
        with them: a name is read again only from a character object it was not read from (the states
        share what an event did not change; reading 2,000 names cost 3 ms a session under cProfile)."""
        chars = self.chars(rules)
        named, names = self._named, self.names
        for cid, c in chars.items():
            if named.get(cid) is not c:
                named[cid] = c
                names[cid] = str(getattr(c, "name", cid) or cid)
        return _Current(names, chars)

    def _points(self, s: Step, key: str, out: dict[str, list[tuple[int, int]]], read: dict[str, Any]) -> None:
        """:func:`_add_points`, a character skipped when its object is the one this chart last read
        (the rules' states share what an event did not change): its value is the one already there."""
        chars = self.chars(s.after.rules)
        for cid in s.characters:
            char = chars.get(cid)
            if char is None or read.get(cid) is char:
                continue
            read[cid] = char
            value = vital(char, key)
            if value is None:
                continue
            pts = out.setdefault(cid, [])
            if not pts or pts[-1][1] != value:
                pts.append((s.rec.position, value))

    def group(self, key: int | None, group: list[Step], file: str) -> str:
        """The section of one session's steps (:meth:`start`, :meth:`add` each, :meth:`finish`)."""
        section = self.start(key, group[0])
        for s in group:
            self.add(section, s)
        return self.finish(section, file)

    def start(self, key: int | None, first: Step) -> _Section:
        return _Section(key, first)

    def add(self, section: _Section, s: Step) -> None:
        """One step of the section: its line, and what the index gathers of it."""
        rec = s.rec
        if rec.type in _DICE_TYPES and self.keep_dice:
            self.dice.append(self._kept(rec) if rec.type == "dice.rolled" else rec)
        if s.characters:
            self._points(s, "PV", self.pv, self._pv_of)
            if self.xp_points is None:
                self._points(s, "XP", self.xp_walk, self._xp_of)
            for cid in s.characters:
                span = self.seen.setdefault(cid, [rec.position, rec.position])
                span[1] = rec.position
        section.add(s)

    def finish(self, section: _Section, file: str) -> str:
        names = self.session_names(section.after.rules)
        self.count += section.count
        if section.key is not None:
            self.marks.append((section.key, section.first))
        page, html = section.html(names, self.xp, self.receipts, file)
        self.pages.append(page)
        return html

    def _kept(self, rec: RecordedEvent) -> RecordedEvent:
        """A dice record as the dice sections read it: without the texts they never read (payload,
        time, the event id when the command's correlation id names it), each roll shared with the
        equal rolls kept before (a 1M campaign has 264,000 dice records and a few thousand different
        rolls: 1.2 kB a record kept whole)."""
        ev = rec.event
        rolls = getattr(ev, "rolls", None)
        if ev is not None and rolls is not None and len(self._rolls) < MAX_SHARED_ROLLS:
            ev = msgspec.structs.replace(ev, rolls=[self._rolls.setdefault(self._encode(r), r) for r in rolls])
        return msgspec.structs.replace(rec, payload="", recorded_at="", event=ev,
                                       event_id="" if rec.correlation_id else rec.event_id)

    def handed(self) -> dict[str, Any]:
        """What the index needs of the sessions this collector walked (a second process hands it
        to the first: :meth:`take`)."""
        return {"pv": self.pv, "xp_walk": self.xp_walk, "seen": self.seen, "names": self.names,
                "pages": self.pages, "marks": self.marks, "count": self.count, "dice": self.dice}

    def summary(self) -> Summary:
        """A copy of what :meth:`handed` holds but the dice records, as a :class:`Summary`."""
        return _SUMMARY.decode(_ENCODE({"pv": self.pv, "xp_walk": self.xp_walk, "seen": self.seen,
                                        "names": self.names, "pages": self.pages, "marks": self.marks,
                                        "count": self.count}))

    def restore(self, summary: Summary, until: int) -> None:
        """Start from what a collector of the earlier sessions gathered (a site cache's
        :class:`Summary`, decoded: not shared with anyone) and the dice records of those sessions
        (positions up to ``until``) read from the log, as if this one had walked them."""
        self.pv, self.xp_walk, self.seen, self.names = summary.pv, summary.xp_walk, summary.seen, summary.names
        self.pages, self.marks, self.count = summary.pages, summary.marks, summary.count
        self.dice = self._dice_between(0, until, self.camp.store)

    def _dice_between(self, after: int, until: int, store: Any) -> list[RecordedEvent]:
        """The records the dice sections read (:data:`_DICE_TYPES`) of positions ``after+1 ..
        until``, in log order, as :meth:`add` keeps them, read from ``store``. Read without decoding,
        each payload decoded once (``Codec.read``, as the store decodes it): the 1M campaign's
        264,000 dice records hold 4,292 different payloads, and decoding each record was most of
        the 1.8 s of CPU this read took."""
        read = store.codec.read
        events: dict[tuple[str, int, str], Any] = {}
        found: list[RecordedEvent] = []
        for kind in sorted(_DICE_TYPES):
            for rec in store.read_all(after=after, until=until, type=kind, decode=False, hashes=False):
                key = (rec.type, rec.schema_version, rec.payload)
                ev = events.get(key)
                if rec.type != "dice.rolled":  # kept whole, as add() keeps it
                    if ev is None:
                        ev = events[key] = read(*key)
                    found.append(msgspec.structs.replace(rec, event=ev))
                    continue
                if ev is None:  # the record as add() keeps it (_kept), its event shared by the equal payloads
                    ev = events[key] = self._kept(msgspec.structs.replace(rec, event=read(*key))).event
                found.append(msgspec.structs.replace(rec, payload="", recorded_at="", event=ev,
                                                     event_id="" if rec.correlation_id else rec.event_id))
        found.sort(key=lambda rec: rec.position)
        return found

    def take(self, later: dict[str, Any]) -> None:
        """Add what a collector of the sessions after these handed (:meth:`handed`), as if this one
        had walked them: a chart's point is kept only where the value changed, across the split too."""
        for mine, theirs in ((self.pv, later["pv"]), (self.xp_walk, later["xp_walk"])):
            for cid, points in theirs.items():
                pts = mine.setdefault(cid, [])
                if pts and points and pts[-1][1] == points[0][1]:
                    points = points[1:]
                pts.extend(points)
        for cid, (first, last) in later["seen"].items():
            self.seen.setdefault(cid, [first, last])[1] = last
        self.names.update(later["names"])
        self.pages.extend(later["pages"])
        self.marks.extend(later["marks"])
        self.count += later["count"]
        self.dice.extend(later["dice"])

    def characters(self) -> list[CharacterPage]:
        xp = self.xp_points if self.xp_points is not None else self.xp_walk
        ids = [c for c in self.seen if c in self.names]
        out = []
        for i, cid in enumerate(sorted(ids, key=lambda c: (self.names[c].casefold(), c))):
            span = self.seen[cid]
            out.append(CharacterPage(cid, f"personnage-{i + 1}.html", self.names[cid], span[0], span[1],
                                     xp.get(cid, []), self.pv.get(cid, [])))
        return out

    def dice_sections(self, store: Any = None) -> str:
        """The GM's dice (overrides, re-rolls, rolls still sealed) when there are any, then the
        fairness report's charts (:func:`.dice_report.html_section`) when any die was rolled; the
        records of ``dice_later`` read first, from ``store`` (default: the campaign's own)."""
        if self.dice_later is not None:
            self.dice.extend(self._dice_between(*self.dice_later, store if store is not None else self.camp.store))
            self.dice_later = None
        out = []
        fudges = fudge_record_lines(self.dice)
        if fudges:
            out.append('<section id="gm-dice"><h2>' + words(_("The GM's dice")) + "</h2><ul>"
                       + "".join(f"<li>{esc(line.strip())}</li>" for line in fudges) + "</ul></section>\n")
        report = dice_report(self.dice)
        if report.dice or report.sealed:
            out.append(html_section(report) + "\n")
        return "".join(out)

    def subtitle(self) -> str:
        return (f"<h1>{esc(self.camp.header.name)}</h1><p class=\"sub\">{esc(self.camp.ruleset.title)} — "
                + esc(_("{count} events — rounding: {rounding}").format(count=self.count,
                                                                        rounding=self.camp.header.rounding))
                + "</p>\n")


def write_html(camp: Any, steps: Iterable[Step], out: TextIO, *,
               ledger: Iterable[LedgerEntry] | None = None) -> int:
    """The whole timeline on one page (standard output, the demo, the web table's download): the
    sessions and the characters with their charts, then every session; returns the number of events."""
    col = _Collector(camp, list(ledger or []))
    sections = [col.group(key, group, "") for key, group in _groups(steps)]
    chars = col.characters()
    w = out.write
    w(_head(f"{esc(camp.header.name)} — {esc(_('timeline'))}"))
    w(col.subtitle())
    w(_sessions_table(col.pages, lambda p: f"#s{p.key}" if p.key is not None else f"#hors-session-{p.first}"))
    if chars:
        w(_characters_table(chars, None))
        w(f'<section id="charts"><h2>{esc(_("Characters: XP and PV"))}</h2>')
        for c in chars:
            w(f'<h3 id="c-{esc(c.cid)}">{esc(c.name)}</h3>{_charts(c, col.marks)}')
        w("</section>\n")
    w(col.dice_sections())
    w(f'<section id="timeline"><h2>{esc(_("Timeline"))}</h2>\n')
    w("".join(sections))
    w("</section></body></html>\n")
    return col.count


def write_site(camp: Any, steps: Iterable[Step], emit: Callable[[str, str], None], *,
               ledger: Iterable[LedgerEntry] | None = None) -> int:
    """The timeline as a small site: ``emit(name, html)`` receives ``index.html``, one
    ``session-N.html`` per session (``hors-session-POS.html`` for a stretch outside any session),
    one ``personnage-N.html`` per character, their list ``personnages.html`` and, when a die was
    rolled, the dice page ``des.html``; returns the number of events. Each session page is
    written as soon as its session is walked, so memory holds one session at a time."""
    col = _Collector(camp, list(ledger or []))
    _write_sessions(col, steps, emit)
    return _write_index(col, emit)


def _write_sessions(col: _Collector, steps: Iterable[Step], emit: Callable[[str, str], None], *,
                    preceding: str | None = None, following: str | None = None,
                    mark: tuple[int, Callable[[], None]] | None = None) -> None:
    """Each session's page, written when the next one's name is known (``preceding``: the page
    before the first; ``following``: the page after the last, when another process writes them).
    ``mark``: (position, call): ``call()`` when a page starts at that position, the pages before
    it gathered by ``col`` (the site cache keeps what the index needs there)."""
    title = esc(col.camp.header.name)
    held: tuple[str, str, SessionPage, str | None] | None = None  # a page waits for its next's name
    section: _Section | None = None
    for s in steps:
        key = s.session.number if s.session else None
        if section is None or key != section.key:
            if section is not None:
                held = _section_done(col, section, emit, title, held, preceding)
            if mark is not None and s.rec.position == mark[0]:
                mark[1]()
            section = col.start(key, s)
        col.add(section, s)
    if section is not None:
        held = _section_done(col, section, emit, title, held, preceding)
    if held is not None:
        _emit_session(emit, title, held, following)


def _section_done(col: _Collector, section: _Section, emit: Callable[[str, str], None], title: str,
                  held: tuple[str, str, SessionPage, str | None] | None,
                  preceding: str | None) -> tuple[str, str, SessionPage, str | None]:
    """A session's section finished: the page before it written (its next's name is now known),
    this one held until the next one's name is known."""
    file = session_file(section.key, section.first)
    html = col.finish(section, file)
    if held is not None:
        _emit_session(emit, title, held, file)
    return (file, html, col.pages[-1], held[0] if held else preceding)


def session_file(key: int | None, first: int) -> str:
    """The file name of a session's page (``session-N.html``), or of a stretch outside any session
    from position ``first`` (``hors-session-POS.html``)."""
    return f"session-{key}.html" if key is not None else f"hors-session-{first}.html"


def _write_index(col: _Collector, emit: Callable[[str, str], None], run: Run | None = None, *,
                 beside: bool = False) -> int:
    """The characters' pages, the list of the characters (:data:`CHARACTERS_FILE`), the dice page
    (:data:`DICE_FILE`, when a die was rolled) and the index, once every session is walked (with
    ``run``: each character page's digest handed to it, and a page the earlier export made of the
    same material kept as it is: :attr:`Run.same_character`). The index holds the sessions' table
    and links to the other two: its size grows with the sessions (and who was at each), not with
    the characters or the dice (the 1M generated campaign's index: 0.66 MB, with 2,450 characters).

    ``beside`` (the walk had two processes): a forked process makes the dice sections (the fairness
    report reads every roll: 0.9 s of the 1M campaign's 2.5 s here; with the later sessions' dice
    records, which it reads from the log) while this one writes the characters' pages; if it
    fails, this one makes them (the same text either way: tested)."""
    def dice_sections() -> str:
        return dice_beside(col)

    dice = site_walk.fork(dice_sections) if beside else None
    title = esc(col.camp.header.name)
    chars = col.characters()
    starts = [p for _n, p in col.marks]
    ordered = _ascending(starts)
    up = f'<a href="index.html">↑ {title}</a>'
    for c in chars:
        if run is not None:
            digest = character_digest(c, col.marks, starts)
            run.characters.append((c.file, digest))
            if run.same_character is not None and run.same_character(c.file, digest):
                emit.keep([c.file])  # type: ignore[attr-defined]
                continue
        emit(c.file, _head(f"{esc(c.name)} — {title}") + f'<nav>{up}<a href="{CHARACTERS_FILE}">'
             f'{esc(_("Characters"))}</a></nav><h1>{esc(c.name)}</h1><p class="sub"><code>{esc(c.cid)}</code> — '
             + esc(_("positions #{first} to #{last}").format(first=c.first, last=c.last))
             + f"</p>{_charts(c, col.marks, ordered)}</body></html>\n")
    nav = [f'<a href="#sessions">{esc(_("Sessions"))}</a>']

    def linked(file: str, name: str, body: str, css: str = "") -> None:  # a page the index links to
        nav.append(f'<a href="{file}">{esc(name)}</a>')
        emit(file, _head(f"{esc(name)} — {title}", css) + f"<nav>{up}</nav>" + col.subtitle() + body
             + "</body></html>\n")

    if chars:
        linked(CHARACTERS_FILE, _("Characters"), _characters_table(chars, lambda c: c.file), SPARK_CSS)
    made = _dice_html(col, dice)
    if made:
        linked(DICE_FILE, _("Dice"), made)
    emit("index.html", _head(f"{title} — {esc(_('timeline'))}") + col.subtitle() + f"<nav>{''.join(nav)}</nav>"
         + _sessions_table(col.pages, lambda p: p.file) + "</body></html>\n")
    return col.count


#: the site's list of the characters, and its page of the dice (the GM's and the fairness report)
CHARACTERS_FILE, DICE_FILE = "personnages.html", "des.html"


def dice_beside(col: _Collector) -> str:
    """:meth:`_Collector.dice_sections` in a forked process, on a connection of its own (an SQLite
    connection is not to be used across a fork)."""
    from ..service import Campaign

    with Campaign.open(col.camp.store.path, readonly=True) as own:
        return col.dice_sections(own.store)


def _dice_html(col: _Collector, child: tuple[int, Any] | None) -> str:
    """The dice sections the forked ``child`` made (:func:`.site_walk.fork`), or made here when there
    is none or it failed."""
    made = site_walk.collect(child)
    return made if isinstance(made, str) else col.dice_sections()


def _emit_session(emit: Callable[[str, str], None], title: str,
                  held: tuple[str, str, SessionPage, str | None], following: str | None) -> None:
    file, section, page, preceding = held
    nav = [f'<a href="index.html">↑ {title}</a>']
    if preceding:
        nav.append(f'<a href="{preceding}">← {esc(_("previous"))}</a>')
    if following:
        nav.append(f'<a href="{following}">{esc(_("next"))} →</a>')
    emit(file, _head(f"{esc(page.heading)} — {title}") + f"<nav>{''.join(nav)}</nav>{section}</body></html>\n")


#: a site of at least this many events may have its later sessions written by a second process
PARALLEL_SITE_MIN = 50_000


class Resume(msgspec.Struct, kw_only=True):
    """Where an export starts again from an earlier one's pages (:mod:`.site_cache` decides it):
    the pages up to ``cut`` are kept (``kept``: their files), ``summary`` is what the index needs
    of them and ``preceding`` the last kept page, the walk goes on from ``cut``."""

    cut: int
    preceding: str | None
    kept: list[str]
    summary: Summary


@dataclass
class Run:
    """What an export and its site cache (:mod:`.site_cache`) hand each other: ``mark``, the position
    where the last page starts (asked before the walk), ``resume`` (go on from an earlier export),
    ``same_character(file, digest)`` (whether the earlier export's character page ``file`` was made
    of the same material and is still as written: then it is kept); after the export, the pages
    written, ``boundary`` (the :class:`Summary` of the pages before the last, None when no page
    started at ``mark``) and each character page's file and digest."""

    mark: int | None = None
    resume: Resume | None = None
    same_character: Callable[[str, str], bool] | None = None
    pages: list[SessionPage] = field(default_factory=list)
    boundary: Summary | None = None
    characters: list[tuple[str, str]] = field(default_factory=list)


def export_site(camp: Any, emit: Callable[[str, str], None], *, after: int = 0, until: int | None = None,
                character: str | None = None, progress: _Progress | None = None,
                ledger: Iterable[LedgerEntry] | None = None, processes: int | None = None,
                run: Run | None = None) -> int:
    """The site of positions ``after+1 .. until`` (with ``character``, only the events concerning it),
    as :func:`write_site` writes it, walked by :func:`.site_walk.steps` (the log read once, in
    position order, one session's steps in memory at a time); returns the number of events.

    ``processes`` (default: 2 when this process may run on two cores or more) splits the log at
    a session's start near its middle: a forked process walks and writes the later sessions' pages
    from the state at the split (the snapshot before it, folded forward) on its own read-only
    connection, and hands back what the index needs; this one walks the earlier sessions, then
    writes the characters' pages and the index. Only for a SQLite file, a whole-campaign site
    (no ``character``) of :data:`PARALLEL_SITE_MIN` events or more, and an ``emit`` that can
    ``adopt`` the files another process wrote (:func:`.outputs.output_folder`'s); a second process
    that fails leaves its sessions to this one.

    ``run`` (a whole-campaign site only; :func:`.site_cache.export_site_cached` makes it): with a
    ``resume``, the pages before its cut are kept (``emit.keep``) and the walk starts there; with
    a ``mark``, what the index needs at the start of the last page is kept in ``run.boundary``."""
    if character is not None:
        check_character(camp, character)
    if run is not None and (after or until is not None or character is not None):
        raise ValueError("only a whole-campaign site goes on from an earlier export")
    with cycles.no_cycle_collector():
        return _export_site(camp, emit, after=after, until=until, character=character, progress=progress,
                            ledger=ledger, processes=processes, run=run)


def _export_site(camp: Any, emit: Callable[[str, str], None], *, after: int, until: int | None,
                 character: str | None, progress: _Progress | None, ledger: Iterable[LedgerEntry] | None,
                 processes: int | None, run: Run | None) -> int:
    end = camp.store.last_position() if until is None else until
    entries = list(ledger or [])
    col = _Collector(camp, entries)
    infos = sessions(camp)
    preceding: str | None = None
    resume = run.resume if run is not None else None
    if resume is not None:  # the pages up to the cut are kept: their material, and the dice the log holds
        col.restore(resume.summary, resume.cut)
        emit.keep(resume.kept)  # type: ignore[attr-defined]
        after, preceding = resume.cut, resume.preceding
    mark: tuple[int, Callable[[], None]] | None = None
    if run is not None and run.mark is not None:
        def at_mark() -> None:
            assert run is not None
            run.boundary = col.summary()

        mark = (run.mark, at_mark)
    if processes is None:
        processes = 2 if site_walk.two_cores() else 1
    split = None
    if (processes > 1 and character is None and end - after >= PARALLEL_SITE_MIN and hasattr(emit, "adopt")
            and site_walk.forkable(camp)):
        split = site_walk.split_point(camp, after, end, infos)
    if split is None:
        _write_sessions(col, site_walk.steps(camp, after=after, until=end, progress=progress, infos=infos), emit,
                        preceding=preceding, mark=mark)
        return _finish(col, emit, run)
    position, before_file, after_file = split
    where = None if mark is None else mark[0]

    def later() -> dict[str, Any]:  # in the child: the later sessions, on its own connection
        from ..service import Campaign

        with Campaign.open(camp.store.path, readonly=True) as own:
            other = _Collector(own, entries)
            other.keep_dice = False  # this one reads them from the log (dice_later): 3.8 µs a record to pickle
            written: list[str] = []
            marked: list[Summary] = []

            def keep(name: str, html: str) -> None:
                emit(name, html)
                written.append(name)

            _write_sessions(other, site_walk.steps(own, after=position, until=end, infos=infos), keep,
                            preceding=before_file,
                            mark=None if where is None else (where, lambda: marked.append(other.summary())))
            return other.handed() | {"written": written, "mark": marked}

    child = site_walk.fork(later)
    share = max(position - after, 1)
    tick = None if progress is None else (lambda n, _t: progress(min(n, share) * (end - after) // share, end - after))
    _write_sessions(col, site_walk.steps(camp, after=after, until=position, progress=tick, infos=infos), emit,
                    preceding=preceding, following=after_file, mark=mark)
    got = site_walk.collect(child)
    if got is None:  # no second process, or it failed: this one writes the later sessions too
        _write_sessions(col, site_walk.steps(camp, after=position, until=end, infos=infos), emit,
                        preceding=before_file, mark=mark)
    else:
        emit.adopt(got.pop("written"))  # type: ignore[attr-defined]
        col.dice_later = (position, end)  # the second process did not keep its dice records
        marked = got.pop("mark")
        if run is not None and marked:  # the last page is the second process's: its summary after ours
            run.boundary = col.summary()
            run.boundary.take(marked[0])
        col.take(got)
    if progress is not None:
        progress(end - after, end - after)
    return _finish(col, emit, run, beside=True)


def _finish(col: _Collector, emit: Callable[[str, str], None], run: Run | None, *, beside: bool = False) -> int:
    """The characters' pages and the index; the pages written handed to ``run``. ``beside``: the
    walk had two processes, so the dice sections are made by a second one (:func:`_write_index`)."""
    if run is not None:
        run.pages = list(col.pages)
    return _write_index(col, emit, run, beside=beside)


_DIGEST = msgspec.msgpack.Encoder()


def character_digest(c: CharacterPage, marks: list[tuple[int, int]], starts: list[int]) -> str:
    """A digest of what a character's page is made of: its id, name, positions, XP and PV points and
    the sessions' marks up to its last point (the page's title, language and code are the site's,
    checked by :mod:`.site_cache` as a whole); a chart draws only the marks up to its last point.
    ``starts``: the marks' positions, in log order."""
    hi = max([c.last, *(p for p, _v in c.xp[-1:]), *(p for p, _v in c.pv[-1:])])
    upto = bisect.bisect_right(starts, hi)
    material = _DIGEST.encode([c.cid, c.name, c.first, c.last, c.xp, c.pv, marks[:upto]])
    return hashlib.blake2b(material, digest_size=16).hexdigest()


def _ascending(starts: list[int]) -> list[int] | None:
    """``starts`` when in ascending order (the sessions' marks are, page after page), else None."""
    return starts if all(a <= b for a, b in zip(starts, starts[1:])) else None
