"""The timeline as one self-contained HTML page: sessions, combat timelines, XP and PV charts in SVG.

No script, no network: the page carries its CSS inline and a Content-Security-Policy that forbids
scripts, and every text a user typed goes through :func:`esc`, so a character named
``<script>alert(1)</script>`` is shown as text and never runs.
"""

from __future__ import annotations

import html as _html
from collections.abc import Iterable
from typing import Any, TextIO

from .. import i18n
from ..display import visible
from ..i18n import _
from ..xp_ledger import LedgerEntry
from .diff import render_change
from .exports import character_names, combats, session_groups, xp_by_session
from .walk import Step

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
CSS = """
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1100px;color:#222;background:#fdfcf8}
h1{margin-bottom:.2rem}.sub{color:#666;margin-top:0}
.session{border-left:4px solid #6a4;padding:.2rem 1rem;margin:1.5rem 0;background:#fff}
.session h2{margin:.4rem 0}.meta{color:#555}
ol.events{list-style:none;padding-left:0}ol.events li{margin:.3rem 0}
.pos{font-family:monospace;color:#888;margin-right:.4rem}.actor{font-size:.8rem;background:#eee;border-radius:3px;padding:0 .3rem;margin-right:.4rem}
ul.changes{margin:.1rem 0 .3rem 4rem;color:#555;font-size:.85rem;font-family:monospace}
table{border-collapse:collapse;margin:.6rem 0;font-size:.9rem}th,td{border:1px solid #ccc;padding:.2rem .5rem;text-align:left}
th{background:#f0efe8}td.num{text-align:right;font-family:monospace}
.charts{display:flex;flex-wrap:wrap;gap:1rem}.chart{background:#fff;border:1px solid #ddd;padding:.3rem}
svg text{font-size:10px;fill:#444}
"""


def esc(text: Any) -> str:
    """HTML-escape any value (quotes included, so it is safe in attributes too), its control and
    format characters shown visibly (:func:`cristal_events.display.visible`)."""
    return _html.escape(visible(text), quote=True)


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
        for cid in s.characters:
            char = camp.ruleset.characters(s.after.rules).get(cid)
            value = vital(char, key) if char is not None else None
            if value is None:
                continue
            pts = out.setdefault(cid, [])
            if not pts or pts[-1][1] != value:
                pts.append((s.rec.position, value))
    return out


def xp_series(ledger: Iterable[LedgerEntry]) -> dict[str, list[tuple[int, int]]]:
    """{character: [(position, balance after)]}: the XP chart of each character, from the ledger."""
    out: dict[str, list[tuple[int, int]]] = {}
    for e in sorted(ledger, key=lambda e: e.position):
        if e.balance_after is not None:
            out.setdefault(e.character, []).append((e.position, e.balance_after))
    return out


def svg_chart(title: str, points: list[tuple[int, int]], *, width: int = 320, height: int = 160,
              colour: str = "#c33") -> str:
    """A step line of ``points`` (position, value) with its axes, as inline SVG."""
    left, right, top, bottom = 40, 10, 18, 22
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
    if len(points) == 1:
        path.append(f"{width - right},{Y(ys[0])}")
    dots = "".join(f'<circle cx="{X(p)}" cy="{Y(v)}" r="2.5" fill="{colour}"><title>#{p} : {v}</title></circle>'
                   for p, v in points)
    return (
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img"><title>{esc(title)}</title>'
        f'<text x="{left}" y="12">{esc(title)}</text>'
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="#999"/>'
        f'<line x1="{left}" y1="{Y(0)}" x2="{width - right}" y2="{Y(0)}" stroke="#999"/>'
        f'<text x="{left - 4}" y="{Y(y1) + 4}" text-anchor="end">{y1}</text>'
        f'<text x="{left - 4}" y="{Y(y0) + 4}" text-anchor="end">{y0}</text>'
        f'<text x="{left}" y="{height - 6}">#{x0}</text>'
        f'<text x="{width - right}" y="{height - 6}" text-anchor="end">#{x1}</text>'
        f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{" ".join(path)}"/>{dots}</svg>'
    )


def _event_item(s: Step) -> str:
    changes = "".join(f"<li>{esc(render_change(c))}</li>" for c in s.changes)
    ul = f'<ul class="changes">{changes}</ul>' if changes else ""
    return (f'<li id="e{s.rec.position}" data-type="{esc(s.rec.type)}"><span class="pos">#{s.rec.position}</span>'
            f'<span class="actor">{esc(s.rec.actor)}</span><span class="summary" title="{esc(s.told)}">{esc(s.summary)}</span>{ul}</li>')


def _combat_table(view: Any, names: dict[str, str]) -> str:
    who = [esc(names.get(c, c)) for c in view.participants]
    head = ("<tr>" + f'<th colspan="{len(who)}">{_("IT before")}</th><th rowspan="2">{_("Turn of")}</th>'
            f'<th rowspan="2">{_("Action")}</th><th rowspan="2">{_("Duration")}</th>'
            f'<th colspan="{len(who)}">{_("IT after")}</th></tr>'
            "<tr>" + "".join(f"<th>{w}</th>" for w in who) * 2 + "</tr>")
    body = []
    for r in view.rows:
        before = "".join(f'<td class="num">{esc(r.it_before.get(c, ""))}</td>' for c in view.participants)
        after = "".join(f'<td class="num">{esc(r.it_after.get(c, ""))}</td>' for c in view.participants)
        dur = f"+{r.duration}"
        body.append(f"<tr>{before}<td>{esc(names.get(r.actor, r.actor))}</td><td>{esc(r.summary)}</td>"
                    f'<td class="num">{esc(dur)}</td>{after}</tr>')
    return (f'<section class="combat"><h3>{_("Fight: {name}").format(name=esc(view.name))}</h3><table>{head}{"".join(body)}</table>'
            "</section>")


def write_html(camp: Any, steps: Iterable[Step], out: TextIO, *,
               ledger: Iterable[LedgerEntry] | None = None) -> int:
    """The whole page; returns the number of events shown."""
    steps = list(steps)
    ledger = list(ledger or [])
    names = character_names(camp, steps)
    xp = xp_by_session(ledger)
    receipts = camp.session_receipts()
    title = esc(camp.header.name)
    w = out.write
    w(f'<!DOCTYPE html>\n<html lang="{i18n.current()}"><head><meta charset="utf-8">'
      f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
      f'<meta name="viewport" content="width=device-width, initial-scale=1">'
      f'<title>{_("{name} — timeline").format(name=title)}</title>'
      f"<style>{CSS}</style></head><body>\n")
    w(f"<h1>{title}</h1><p class=\"sub\">" + _("{rules} — {n} events — rounding: {rounding}").format(
        rules=esc(camp.ruleset.title), n=len(steps), rounding=esc(camp.header.rounding)) + "</p>\n")
    xp_points = xp_series(ledger) if ledger else series(camp, steps, "XP")
    pv_points = series(camp, steps, "PV")
    if xp_points or pv_points:
        w(f'<section id="charts"><h2>{_("Characters: XP and PV")}</h2><div class="charts">')
        for cid in sorted(set(xp_points) | set(pv_points), key=lambda c: names.get(c, c)):
            name = names.get(cid, cid)
            if cid in xp_points:
                w(svg_chart(f"{name} — XP", xp_points[cid], colour="#36a"))
            if cid in pv_points:
                w(svg_chart(f"{name} — PV", pv_points[cid], colour="#c33"))
        w("</div></section>\n")
    w(f'<section id="timeline"><h2>{_("Timeline")}</h2>\n')
    for key, group in session_groups(steps):
        info = group[0].session
        if key is None:
            heading = _("Outside any session")
        else:
            assert info is not None  # a group with a session number has its session
            heading = _("Session {number}").format(number=key) + (_(": {title}").format(title=info.title) if info.title else "")
        date = (f'<p class="meta">{_("In-game date: {date}").format(date=esc(info.in_game_date))}</p>'
                if info and info.in_game_date else "")
        present: dict[str, None] = {}
        for s in group:
            present.update(dict.fromkeys(s.characters))
        who = (f'<p class="meta">{_("Present:")} {", ".join(esc(names.get(c, c)) for c in present)}</p>'
               if present else "")
        trades = ""
        if xp.get(key):
            trades = ('<p class="meta">' + _("XP earned / spent:") + " " + " ; ".join(
                f"{esc(names.get(c, c))} +{e} / −{sp}" for c, (e, sp) in xp[key].items()) + "</p>")
        sid = f"s{key}" if key is not None else "hors-session"
        receipt = (f'<p class="meta receipt">{_("Receipt:")} <code>{esc(receipts[key])}</code></p>'
                   if key in receipts else "")  # the receipt of the session's end (an open one has none)
        w(f'<section class="session" id="{sid}"><h2>{esc(heading)}</h2>{date}{who}{trades}{receipt}<ol class="events">')
        w("".join(_event_item(s) for s in group))
        w("</ol>")
        w("".join(_combat_table(v, names) for v in combats(group)))
        w("</section>\n")
    w("</section></body></html>\n")
    return len(steps)
