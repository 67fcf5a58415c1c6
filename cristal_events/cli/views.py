"""Terminal views that fit: the party, a combat's IT timeline and a combat's log, in 80 columns.

Every rules' CLI calls these with plain data (cells, fighters, rows): the layout lives here once.
Names are shown in full: a table is used when its columns fit the width; otherwise each record is
laid out in rows (a title line, then its values wrapped under it). Widths are measured as the
terminal draws them (``wcwidth``: a CJK character takes two columns, a combining accent none), on
the visible form of the text (:func:`cristal_events.display.visible`), which is what :func:`echo`
prints.

    lines = party_lines([[("Nom", "Thor"), ("PV", "14/21")], ...])
    lines = timeline_lines("pendu", [Fighter("Thor", it=6, pv="9/15", next=True), ...])
    lines = combat_log_lines(rows, names)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import click
from wcwidth import wcswidth, wcwidth

from ..display import visible
from ..i18n import _

WIDTH = 80
COMMANDS: list[click.Command] = []  # every module of cristal_events.cli lists its commands; this one has none


def cols(text: str) -> int:
    """The columns ``text`` takes on a terminal (its visible form; a character wcwidth cannot size, 1)."""
    shown = visible(text)
    n = wcswidth(shown)
    return n if n >= 0 else sum(max(wcwidth(c), 1) for c in shown)


def pad(text: str, width: int, right: bool = False) -> str:
    gap = " " * max(width - cols(text), 0)
    return gap + text if right else text + gap


def wrap(text: str, width: int = WIDTH, indent: str = "", first: str = "") -> list[str]:
    """``text`` in lines of at most ``width`` columns: words kept whole where they fit, a word longer
    than a line cut across lines (nothing is dropped); ``first`` starts the first line, ``indent`` the
    others. (textwrap counts characters, not terminal columns: this measures with wcwidth.)"""
    if cols(first + text) <= width:  # fits: kept as it is, its runs of spaces too
        return [visible(first + text).rstrip()]
    lines: list[str] = []
    line, fresh = first, True  # fresh: the line holds only its prefix
    parts = re.split(r"( +)", visible(text))  # words and the runs of spaces between them, kept as typed
    for i in range(0, len(parts), 2):
        word, sep = parts[i], parts[i - 1] if i else ""
        while word:
            gap = "" if fresh else sep
            if cols(line) + len(gap) + cols(word) <= width:
                line, fresh, word = line + gap + word, False, ""
            elif not fresh:
                lines.append(line)
                line, fresh = indent, True
            else:  # a word longer than a whole line: cut it
                cut = ""
                for ch in word:
                    if cols(line + cut + ch) > width:
                        break
                    cut += ch
                cut = cut or word[0]
                lines.append(line + cut)
                line, word = indent, word[len(cut):]
    if not fresh or not lines:
        lines.append(line)
    return [ln.rstrip() for ln in lines]


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], *, right: Sequence[bool] = (),
          width: int = WIDTH) -> list[str] | None:
    """A table with a header row, columns two spaces apart; None when it is wider than ``width``."""
    n = len(headers)
    sizes = [max([cols(headers[i])] + [cols(r[i]) for r in rows]) for i in range(n)]
    if sum(sizes) + 2 * (n - 1) > width:
        return None
    align = list(right) + [False] * (n - len(right))

    def line(cells: Sequence[str]) -> str:
        return "  ".join(pad(c, sizes[i], align[i]) for i, c in enumerate(cells)).rstrip()

    return [line(headers)] + [line(r) for r in rows]


def records(items: Sequence[tuple[str, Sequence[str]]], *, width: int = WIDTH, indent: str = "    ") -> list[str]:
    """Each record as its title line (wrapped if need be), then its values, ``·`` between them, under
    it: a value moves whole to the next line rather than being split (unless it is a line long)."""
    out: list[str] = []
    for title, values in items:
        out += wrap(title, width, indent)
        line = indent
        for v in values:
            piece = v if line == indent else f"  ·  {v}"
            if line != indent and cols(line) + cols(piece) > width:
                out.append(line)
                line, piece = indent, v
            if cols(line) + cols(piece) > width:
                out += wrap(piece, width, indent, first=line)
                line = indent
            else:
                line += piece
        if line != indent:
            out.append(line)
    return out


def display_names(characters: dict[str, Any]) -> dict[str, str]:
    """Character id -> the name its sheet gives (the id when it has none)."""
    return {cid: str(getattr(c, "name", "") or cid) for cid, c in characters.items()}


# ------------------------------------------------------------------------------------------ party
def party_lines(party: Sequence[Sequence[tuple[str, str]]], *, width: int = WIDTH) -> list[str]:
    """The party: one row of ``(header, value)`` cells per character, the first cell its name. A table
    when it fits; else each character as ``Name`` then ``Header value · ...`` wrapped under it."""
    if not party:
        return []
    headers = [h for h, _ in party[0]]
    rows = [[v for _, v in cells] for cells in party]
    numeric = [all(_numberish(r[i]) for r in rows) for i in range(len(headers))]
    laid = table(headers, rows, right=numeric, width=width)
    if laid is not None:
        return laid
    return records([(cells[0][1], [f"{h} {v}" if h else v for h, v in cells[1:] if v]) for cells in party],
                   width=width)


def _numberish(text: str) -> bool:
    return any(c.isdigit() for c in text) and all(c.isdigit() or c in "+-−/" for c in text)


# --------------------------------------------------------------------------------- IT timeline
@dataclass(frozen=True)
class Fighter:
    """One fighter of a combat as the timeline draws it."""

    name: str
    it: int
    pv: str = ""
    pm: str = ""
    note: str = ""  # the condition, an incantation ...
    next: bool = False


BAR = 24  # the columns of the IT bar


def timeline_lines(title: str, fighters: Sequence[Fighter], *, width: int = WIDTH, after: str = "") -> list[str]:
    """The combat's IT timeline: the fighters in the order they act (the lowest IT first, L1216), each
    with a bar as long as its IT on one scale, its IT, PV and PM, and its condition; ``▶`` marks who
    acts next. A name too long for its column gets a line of its own, the bar under it; a condition
    that does not fit goes on the next line. ``after``: a sentence to end with (why no one acts yet)."""
    order = sorted(fighters, key=lambda f: (f.it, not f.next))
    lines = [title]
    if order:
        top = max(max(f.it for f in order), 1)
        name_w = min(max(cols(f.name) for f in order), 26)
        lead = 2 + name_w + 1
        lines.append(" " * (lead + 8) + "0" + "IT".center(BAR - 1 - len(str(top))) + str(top))
        for f in order:
            mark = "▶ " if f.next else "  "
            filled = round(BAR * f.it / top)
            vitals = "  ".join(v for v in (f"PV {f.pv}" if f.pv else "", f"PM {f.pm}" if f.pm else "") if v)
            body = f"IT {f.it:>4} {'█' * filled}{'·' * (BAR - filled)} {vitals}".rstrip()
            if cols(f.name) <= name_w:
                row = f"{mark}{pad(f.name, name_w)} {body}"
            else:
                lines += wrap(f.name, width, "  ", first=mark)
                row = f"{' ' * lead}{body}"
            if f.note and cols(row) + 2 + cols(f.note) <= width:
                lines.append(f"{row}  {f.note}")
            else:
                lines.append(row)
                if f.note:
                    lines += wrap(f.note, width, " " * (lead + 8), first=" " * (lead + 8))
        nxt = next((f for f in order if f.next), None)
        if nxt is not None:
            lines += wrap(_("Next to act: {name} (IT {it}).").format(name=nxt.name, it=nxt.it), width, "  ")
    if after:
        lines += wrap(after, width, "  ")
    return lines


# ---------------------------------------------------------------------------------- combat log
def combat_log_lines(rows: Sequence[dict[str, Any]], names: dict[str, str], *, width: int = WIDTH) -> list[str]:
    """The book's combat table (L1300) in rows: for each action ``#POS  Name  +N s`` with every IT
    after (``Name before → after`` for the actor), then the action wrapped under it."""
    out: list[str] = []
    for r in rows:
        actor = names.get(r["actor"], r["actor"])
        its = []
        for fid, after in r["it_after"].items():
            before = r["it_before"].get(fid, after)
            shown = f"{before} → {after}" if before != after else str(after)
            its.append(f"{names.get(fid, fid)} {shown}")
        head = f"#{r['position']:<5} " + _("{actor}: {duration} s; IT {its}").format(
            actor=actor, duration=f"{r['duration']:+d}", its=", ".join(its))
        out += wrap(head, width, "       ")
        out += wrap(str(r["action"]), width, "       ", first="       ")
    return out
