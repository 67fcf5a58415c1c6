"""The fairness report: the faces the log's dice show against a fair die's, per die size and source.

``cristal dice report [--session N] [--character ID]`` reads the ``dice.rolled`` records (every die
of a command: its sides, its face and its source, in the order rolled) and, for each die size and
each source (``engine``: rolled by the engine; ``table``: entered with ``--dice``), counts the faces
and compares them with the uniform distribution:

* **chi-square** ``X² = Σ (observed − expected)² / expected`` with ``faces − 1`` degrees of freedom
  and its p-value, the chi-square survival function (:func:`chi2_sf`). When a face's expected count
  is below 5 (the rule of thumb below which the chi-square approximation is poor), neighbouring faces
  are pooled into bins of consecutive faces until each bin expects at least 5, and the degrees of
  freedom are ``bins − 1``; with fewer than two such bins there is no test, and the report says so.
* **streaks** in the order rolled: the longest run of the same face, of maxima and of minima, each
  with the run expected in that many rolls and the probability of a run at least that long
  (:func:`run_tail`, exact for independent fair dice).

**Which rolls count.** A command's character is the one its first ruleset event acts for: its
``attacker``, ``caster``, ``actor``, ``character`` or ``fighter`` field, else its ``character:ID`` stream
(:func:`acting_character`); a command that acts for no one character (an initiative round, a note)
counts in the whole report but in no character's. Every position :func:`sealed_positions` names is
left out: the hook for secret rolls (a ``roll.sealed`` record is left out until its ``roll.revealed``),
empty while the log has none.

Python API::

    report = dice_report(camp.store.read_all(), session=2, character="thor")
    chi2_sf(11.07, 5)                     # 0.05 (the statistics: cristal_events.jobs.dice_stats)
    msgspec.to_builtins(report)           # what --json prints
    text_lines(report); markdown(report); html_section(report)
"""

from __future__ import annotations

import html as _html
import math
from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from ..display import visible
from ..events import DiceRecorded
from ..i18n import N_, _
from ..records import RecordedEvent
from .dice_stats import chi2_sf, expected_longest_run, run_tail

#: a face's expected count below which faces are pooled (the usual rule for the chi-square test)
MIN_EXPECTED = 5.0
SOURCES = {"rolled": "engine", "entered": "table"}
ACTING_FIELDS = ("attacker", "caster", "actor", "character", "fighter")
CHARACTER_STREAM = "character:"


# ------------------------------------------------------------------------------ the hook for secret rolls
def sealed_positions(records: Iterable[RecordedEvent]) -> set[int]:
    """The positions of the secret rolls still sealed among ``records``: a ``roll.sealed`` whose
    ``roll.revealed`` has not come yet (:func:`cristal_events.jobs.fudges.dice_audit` decides it, for the
    audit and the exports too). A sealed command's events, its dice record included, enter the log only
    when revealed, so its faces are absent from the report by construction; these positions are counted
    as left out (and a dice record at one of them would be left out), for the report and the players'
    recap alike."""
    from .fudges import dice_audit

    return set(dice_audit(records).sealed)


def _sig(value: float) -> float:
    """Six significant digits (a tail probability can be 1e-40 and still mean something)."""
    return float(f"{value:.6g}")


def _longest(flags: list[bool]) -> int:
    best = cur = 0
    for f in flags:
        cur = cur + 1 if f else 0
        best = max(best, cur)
    return best


class Streak(msgspec.Struct, kw_only=True):
    """The longest run of one kind in the order rolled, against a fair die's."""

    kind: str  # same_face | maxima | minima
    longest: int
    face: int | None = None  # for same_face: the face of the (first) longest run
    expected: float = 0.0  # the mean longest run of fair dice in as many rolls
    p_at_least: float = 1.0  # the probability that fair dice give a run at least this long


def streaks(faces: list[int], sides: int) -> list[Streak]:
    """The longest runs of the same face, of maxima and of minima, each in context (see the module)."""
    n = len(faces)
    p = 1.0 / sides
    out: list[Streak] = []
    # a run of L equal faces is L−1 consecutive repeats; "this die equals the previous one" is an
    # independent Bernoulli(1/sides) for fair dice, so the same formula holds with n−1 trials
    best, best_face, cur = (1, faces[0], 1) if faces else (0, None, 0)
    for i in range(1, n):
        cur = cur + 1 if faces[i] == faces[i - 1] else 1
        if cur > best:
            best, best_face = cur, faces[i]
    out.append(Streak(kind="same_face", longest=best, face=best_face,
                      expected=round(1 + expected_longest_run(n - 1, p), 3) if n else 0.0,
                      p_at_least=_sig(run_tail(n - 1, best - 1, p)) if best > 1 else 1.0))
    for kind, target in (("maxima", sides), ("minima", 1)):
        longest = _longest([f == target for f in faces])
        out.append(Streak(kind=kind, longest=longest, face=target, expected=round(expected_longest_run(n, p), 3),
                          p_at_least=_sig(run_tail(n, longest, p)) if longest else 1.0))
    return out


# ------------------------------------------------------------------------------------------- the test
class Bin(msgspec.Struct, kw_only=True):
    low: int
    high: int
    observed: int
    expected: float


class DiceGroup(msgspec.Struct, kw_only=True):
    """The faces of one die size from one source, against a fair die's."""

    sides: int
    source: str  # engine | table
    rolls: int
    counts: dict[int, int]  # every face 1..sides, zero included
    expected: float  # per face
    bins: list[Bin]  # the cells of the test (one per face, or pooled faces)
    pooled: bool
    chi_square: float | None
    df: int | None
    p_value: float | None
    note: str = ""
    streaks: list[Streak] = []


def chi_square(counts: list[int]) -> tuple[float, list[Bin], bool] | None:
    """The statistic over the cells of ``counts`` (faces 1..k), pooling neighbours below 5 expected;
    None when fewer than two cells would remain."""
    n, k = sum(counts), len(counts)
    if k < 2 or n == 0:
        return None
    per = n / k
    size = 1 if per >= MIN_EXPECTED else math.ceil(MIN_EXPECTED / per)
    cells = k // size
    if cells < 2:
        return None
    bins: list[Bin] = []
    for i in range(cells):
        low = i * size
        high = k if i == cells - 1 else low + size  # the remainder joins the last cell
        bins.append(Bin(low=low + 1, high=high, observed=sum(counts[low:high]), expected=n * (high - low) / k))
    stat = sum((b.observed - b.expected) ** 2 / b.expected for b in bins)
    return stat, bins, size > 1


def group(sides: int, source: str, faces: list[int]) -> DiceGroup:
    counts = [0] * sides
    for f in faces:
        if 1 <= f <= sides:
            counts[f - 1] += 1
    n = len(faces)
    tested = chi_square(counts)
    note = ""
    bins: list[Bin] = []
    stat: float | None = None
    df: int | None = None
    p: float | None = None
    pooled = False
    if tested is None:
        note = (_("a d{sides} has a single face: nothing to test").format(sides=sides) if sides < 2 else
                _("too few rolls for a chi-square test: {rolls} of d{sides}, at least {needed} needed").format(
                    rolls=n, sides=sides, needed=math.ceil(2 * MIN_EXPECTED)))
    else:
        stat, bins, pooled = tested
        df = len(bins) - 1
        p = chi2_sf(stat, df)
        if pooled:
            ranges = ", ".join(f"{b.low}–{b.high}" for b in bins)
            note = _("faces pooled into {bins} bins ({ranges}): a face is expected {expected} times, "
                     "under {minimum}").format(bins=len(bins), ranges=ranges, expected=f"{n / sides:.2f}",
                                               minimum=f"{MIN_EXPECTED:g}")
    return DiceGroup(sides=sides, source=source, rolls=n, counts={i + 1: c for i, c in enumerate(counts)},
                     expected=round(n / sides, 4) if sides else 0.0, bins=bins, pooled=pooled,
                     chi_square=None if stat is None else round(stat, 6), df=df,
                     p_value=None if p is None else _sig(p), note=note,
                     streaks=streaks(faces, sides) if sides >= 2 and faces else [])


# ----------------------------------------------------------------------------------- reading the log
def acting_character(events: list[RecordedEvent]) -> str | None:
    """The character a command acts for: the first ruleset event's ``attacker``, ``caster``, ``actor``,
    ``character`` or ``fighter`` field, else its ``character:ID`` stream (see the module)."""
    for rec in events:
        if rec.type == "dice.rolled":
            continue
        payload = msgspec.json.decode(rec.payload)
        if isinstance(payload, dict):
            for key in ACTING_FIELDS:
                value = payload.get(key)
                if isinstance(value, str) and value:
                    return value
        if rec.stream.startswith(CHARACTER_STREAM):
            return rec.stream[len(CHARACTER_STREAM):]
    return None


class DiceReport(msgspec.Struct, kw_only=True):
    """What ``cristal dice report --json`` prints."""

    session: int | None
    character: str | None
    commands: int
    dice: int
    sealed: int  # dice records left out because they are still sealed (sealed_positions)
    groups: list[DiceGroup]


def commands_with_dice(records: Iterable[RecordedEvent]) -> Iterator[tuple[RecordedEvent, list[RecordedEvent]]]:
    """Each dice record with the other events of its command (same correlation id), in log order."""
    pending: dict[str, list[RecordedEvent]] = {}
    for rec in records:
        key = rec.correlation_id or rec.event_id
        events = pending.setdefault(key, [])
        events.append(rec)
        if rec.type == "dice.rolled":  # the last event of a command that rolled
            yield rec, pending.pop(key)


def dice_report(records: Iterable[RecordedEvent], *, session: int | None = None,
                character: str | None = None) -> DiceReport:
    """The report over ``records`` (decoded, in log order): only ``session``'s dice and ``character``'s
    commands when given, never a sealed record."""
    records = list(records)
    sealed = sealed_positions(records)
    faces: dict[tuple[int, str], list[int]] = {}
    commands = dice = left_out = 0
    for rec, events in commands_with_dice(records):
        if session is not None and rec.session != session:
            continue
        if character is not None and acting_character(events) != character:
            continue
        if rec.position in sealed:
            left_out += 1
            continue
        ev = rec.event
        assert isinstance(ev, DiceRecorded)
        commands += 1
        for roll in ev.rolls:
            for d in roll.dice:
                faces.setdefault((d.sides, SOURCES[d.source]), []).append(d.face)
                dice += 1
    groups = [group(sides, source, fs) for (sides, source), fs in sorted(faces.items())]
    # a sealed roll has no dice record in the log until revealed: each still sealed (in the session asked
    # for; whose it is stays sealed too, so a character's report cannot count it) is counted as left out
    if character is None:
        left_out += sum(1 for rec in records if rec.position in sealed and rec.type == "roll.sealed"
                        and (session is None or rec.session == session))
    return DiceReport(session=session, character=character, commands=commands, dice=dice, sealed=left_out,
                      groups=groups)


# ----------------------------------------------------------------------------------------- renderings
_KINDS = {"same_face": N_("same face"), "maxima": N_("maxima"), "minima": N_("minima")}


def _p(value: float | None) -> str:
    return "—" if value is None else f"{value:.4g}"


def streak_text(s: Streak) -> str:
    what = _(" (face {face})").format(face=s.face) if s.kind == "same_face" and s.face is not None else ""
    label = _("the same face") if s.kind == "same_face" else f"{_(_KINDS[s.kind])} ({s.face})"
    return _("longest run of {label}: {longest}{face}, expected about {expected}, "
             "P(at least this long) = {p}").format(label=label, longest=s.longest, face=what,
                                                   expected=f"{s.expected:.1f}", p=f"{s.p_at_least:.3g}")


def group_title(g: DiceGroup) -> str:
    source = _("engine") if g.source == "engine" else _("table") if g.source == "table" else g.source
    return _("d{sides}, {source}: {rolls} roll(s)").format(sides=g.sides, source=source, rolls=g.rolls)


def verdict(g: DiceGroup) -> str:
    if g.chi_square is None:
        return g.note
    pooled = f" ({g.note})" if g.pooled else ""
    return _("chi-square {statistic}, {df} degrees of freedom, p = {p}{pooled}").format(
        statistic=f"{g.chi_square:.3f}", df=g.df, p=_p(g.p_value), pooled=pooled)


def scope(report: DiceReport) -> str:
    parts = [_("session {number}").format(number=report.session) if report.session is not None
             else _("the whole campaign")]
    if report.character is not None:
        parts.append(_("commands acting for {character}").format(character=report.character))
    sealed = _("; {count} sealed record(s) left out").format(count=report.sealed) if report.sealed else ""
    return _("{scope}: {dice} dice in {commands} command(s){sealed}").format(
        scope=", ".join(parts), dice=report.dice, commands=report.commands, sealed=sealed)


def text_lines(report: DiceReport) -> list[str]:
    """The report as text (``cristal dice report``)."""
    lines = [_("Dice fairness, {scope}.").format(scope=scope(report))]
    if not report.groups:
        lines.append(_("No dice."))
    for g in report.groups:
        lines.append("")
        lines.append(group_title(g))
        shown = g.counts if g.sides <= 20 else {f: c for f, c in g.counts.items() if c}  # a d100: the faces rolled
        rest = "" if g.sides <= 20 else _("  (every other face 0)")
        lines.append(_("  faces:    {faces}").format(faces="  ".join(f"{f}:{c}" for f, c in shown.items())) + rest)
        lines.append(_("  expected: {expected} per face").format(expected=f"{g.expected:g}"))
        lines.append("  " + verdict(g))
        lines.extend("  " + streak_text(s) for s in g.streaks)
    lines.append("")
    lines.append(_("A small p-value (say under 0.01) says faces this uneven are rare for fair dice; among many "
                   "groups and sessions one such value is expected by chance (docs/verifiable-dice.md)."))
    return [visible(line) for line in lines]


def display_cells(g: DiceGroup) -> list[tuple[str, int, float]]:
    """(faces, observed, expected) for a table: one column a face up to a d20, else ten ranges of faces."""
    k = len(g.counts)
    width = 1 if k <= 20 else math.ceil(k / 10)
    cells = []
    for low in range(1, k + 1, width):
        high = min(low + width - 1, k)
        observed = sum(g.counts[f] for f in range(low, high + 1))
        cells.append((str(low) if low == high else f"{low}–{high}", observed, round(g.rolls * (high - low + 1) / k, 4)))
    return cells


def markdown(report: DiceReport, *, level: int = 2) -> str:
    """The report as a Markdown section (the timeline's Markdown export)."""
    h = "#" * level
    out = [f"{h} {_('Dice: fairness')}", "", f"*{visible(scope(report))}*", ""]
    for g in report.groups:
        cells = display_cells(g)
        out += [f"{h}# {group_title(g)}", "", f"| {_('faces')} | " + " | ".join(c[0] for c in cells) + " |",
                "|---|" + "---|" * len(cells), f"| {_('observed')} | " + " | ".join(str(c[1]) for c in cells) + " |",
                f"| {_('expected')} | " + " | ".join(f"{c[2]:g}" for c in cells) + " |", "", f"- {verdict(g)}"]
        out += [f"- {streak_text(s)}" for s in g.streaks]
        out.append("")
    if not report.groups:
        out += [_("No dice."), ""]
    return "\n".join(out)


def _bar_chart(g: DiceGroup, *, width: int = 360, height: int = 150) -> str:
    """Observed faces as bars, the fair die's expected count as a line, in inline SVG."""
    left, right, top, bottom = 34, 8, 18, 22
    k = len(g.counts)
    top_value = max([*g.counts.values(), g.expected, 1])
    bw = (width - left - right) / k
    sy = (height - top - bottom) / top_value

    def Y(v: float) -> float:
        return round(height - bottom - v * sy, 1)

    bars = []
    for i, (face, count) in enumerate(g.counts.items()):
        x = round(left + i * bw, 1)
        bars.append(f'<rect x="{x}" y="{Y(count)}" width="{max(round(bw - 1, 1), 0.5)}" '
                    f'height="{round(count * sy, 1)}" fill="#6a4"><title>{face} : {count}</title></rect>')
        if k <= 20 or face in (1, k) or face % 10 == 0:
            bars.append(f'<text x="{round(x + bw / 2, 1)}" y="{height - 8}" text-anchor="middle">{face}</text>')
    title = _html.escape(f"{group_title(g)} — {verdict(g)}")
    return (f'<svg class="chart dice-chart" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img"><title>{title}</title>'
            f'<text x="{left}" y="12">{_html.escape(group_title(g))}</text>'
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="#999"/>'
            f'<line x1="{left}" y1="{Y(0)}" x2="{width - right}" y2="{Y(0)}" stroke="#999"/>'
            f'<text x="{left - 4}" y="{Y(top_value) + 4}" text-anchor="end">{top_value:g}</text>'
            f'{"".join(bars)}<line x1="{left}" y1="{Y(g.expected)}" x2="{width - right}" y2="{Y(g.expected)}" '
            f'stroke="#c33" stroke-dasharray="4 3"><title>{_html.escape(_("expected {count}").format(count=f"{g.expected:g}"))}'
            '</title></line></svg>')


def html_section(report: DiceReport) -> str:
    """The report as one self-contained HTML section (inline SVG, no script, no external style):
    ``<section id="dice-fairness">``, placed by the HTML export where it fits."""
    parts = [f'<section id="dice-fairness"><h2>{_html.escape(_("Dice: fairness"))}</h2>',
             f'<p class="meta">{_html.escape(visible(scope(report)))}</p><div class="charts">']
    for g in report.groups:
        lines = "".join(f"<li>{_html.escape(streak_text(s))}</li>" for s in g.streaks)
        parts.append(f'<figure class="dice-group" style="margin:0">{_bar_chart(g)}'
                     f'<figcaption>{_html.escape(verdict(g))}<ul>{lines}</ul></figcaption></figure>')
    if not report.groups:
        parts.append(f"<p>{_html.escape(_('No dice.'))}</p>")
    parts.append("</div></section>")
    return "".join(parts)


def report_json(report: DiceReport) -> dict[str, Any]:
    """The report as plain data (``--json``): face keys as text, as JSON requires."""
    data: dict[str, Any] = msgspec.to_builtins(report)
    return data
