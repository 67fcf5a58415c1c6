"""Small helpers shared by the command modules: opening the campaign, output, dice lists.

Every line of TEXT output goes through :func:`echo` (or :func:`emit_lines`), which shows each control
and format character a value carries visibly (:func:`cristal_events.display.visible`): one call is one
line, so a newline inside a name is shown as ``⏎`` and cannot fake a line. ``--json`` output
(:func:`emit_json`) is exact JSON, which escapes control characters itself (and :func:`to_json` the
C1 and format characters).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import Any

import click
import msgspec

from .. import bounds
from ..display import inert_json, visible
from ..errors import DiceError, RuleError
from ..i18n import _
from ..service import Campaign, RecordedEvent

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts instead of text.")
def dice_option_with(help: str, metavar: str = "F[,F...]") -> Any:
    """The one ``--dice`` option (a string of faces, parsed by :func:`parse_faces` when the command
    runs: :func:`run` does), with the sentence of the command's own dice."""
    return click.option("--dice", "dice", metavar=metavar, default=None, help=help)


dice_option = dice_option_with("The faces rolled at the table, in the order the rule rolls them; without it the "
                               "engine rolls.")


def open_campaign(ctx: click.Context, *, write: bool = False, readonly: bool = False) -> Campaign:
    """Open the campaign of ``--db``; for writes, attach the projections so read models follow;
    ``readonly``: open the file read-only (a read command that writes nothing).

    A command recorded whose read models could not follow prints its warning ("Recorded
    (position N) but ...") on stderr (:attr:`Campaign.on_warning`), and the exit stays 0."""
    shared = ctx.obj.get("shared_campaign")  # the web table's campaign, kept open across its commands
    if shared is not None:
        return shared(write)
    camp = Campaign.open(ctx.obj["db"], readonly=readonly and not write)
    if write:
        from cristal_events import projections

        projections.attach(camp)
    ctx.call_on_close(camp.close)
    return camp


def run(ctx: click.Context, command: Any, as_json: bool, dice: str | None = None, *,
        then: Callable[[Campaign], tuple[dict[str, Any], Callable[[], None]]] | None = None) -> list[RecordedEvent]:
    """Execute ``command`` on the campaign of ``--db`` (its read models following) with the faces of
    ``--dice`` (``"13,4,4"``; None: the engine rolls), and print what was recorded: a line
    ``position  summary`` per event, or with ``--json`` the list of the events.

    ``then(camp)``, when given, is what to show after the events, as ``(json, print_text)``: the JSON
    becomes ``{"events": [...], **json}`` (each event without its stream) and ``print_text()`` prints
    its lines after the events' (the combat commands show the combat so)."""
    faces = parse_faces(dice)  # what was typed is checked before the campaign is touched
    camp = open_campaign(ctx, write=True)
    recs = camp.execute(command, actor=actor(ctx), faces=faces)
    extra, show = then(camp) if then is not None else ({}, None)
    if as_json:
        if then is None:
            emit_json([{"position": r.position, "stream": r.stream, "type": r.type,
                        "event": msgspec.to_builtins(r.event), "summary": camp.summarize(r)} for r in recs])
        else:
            emit_json({"events": [{"position": r.position, "type": r.type, "event": msgspec.to_builtins(r.event),
                                   "summary": camp.summarize(r)} for r in recs], **extra})
        return recs
    for r in recs:
        echo(f"{r.position:>6}  {camp.summarize(r)}")
    if show is not None:
        show()
    return recs


def catch_up(camp: Campaign, *, progress: Any = None) -> None:
    """Bring the read models up to date before reading them; what they cannot hold (a number an older
    engine let into the log) becomes a warning on stderr, and the rest is read as usual."""
    from cristal_events.projections import runner

    problems: list[str] = []
    runner.catch_up(camp, progress=progress, problems=problems)
    for p in problems:
        camp.warn(f"{p[0].upper()}{p[1:]}")


def read_model_rows(camp: Campaign, projection: str, table: str, *, where: dict[str, Any] | None = None,
                    order_by: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """The rows of a read-model table for a read command, which opens the campaign read-only and writes
    nothing: the stored table when its read model has folded the whole log; else (read models behind,
    or never built) the rows a rebuild would write, computed from the log in memory, and a warning on
    stderr saying so. ``where``: columns that must equal these values; ``order_by``: the columns."""
    import cristal_events.projections.runner  # noqa: F401  (projections.runner)
    from cristal_events import projections

    p = next(p for p in projections.for_campaign(camp) if p.name == projection)
    if camp.store.read_model_current(p.name, p.version):
        return camp.store.read_model_rows(table, where=where, order_by=order_by)
    camp.warn(_("The read model {name} is behind the log: its rows were computed from the log in memory (the "
                "next write command, or 'cristal rebuild', writes it)").format(name=p.name))
    rows = [r for r in projections.runner.expected_table(camp, p, table)
            if all(r.get(k) == v for k, v in (where or {}).items())]
    return sorted(rows, key=lambda r: tuple(r[c] for c in order_by)) if order_by else rows


def actor(ctx: click.Context) -> str:
    return ctx.obj["actor"]


def parse_faces(text: str | None) -> list[int] | None:
    """``"13,4,4"`` -> [13, 4, 4]; a malformed list is one clear DiceError."""
    if text is None:
        return None
    parts = [p.strip() for p in text.replace(";", ",").split(",") if p.strip()]
    if not parts:
        raise DiceError(_("--dice needs at least one face, e.g. --dice 13,4,4."))
    faces = []
    for p in parts:
        try:
            faces.append(bounds.parse_int(p, "--dice face"))
        except bounds.OutOfBounds as exc:
            raise DiceError(_("{str}; give faces like 13,4,4.").format(str=str(exc).rstrip('.'))) from None
    return faces


def to_json(data: Any) -> str:
    """Exact JSON, its DEL, C1 and format characters escaped too (:func:`~cristal_events.display.inert_json`)."""
    return inert_json(msgspec.json.encode(data, enc_hook=_enc).decode())


def _enc(obj: Any) -> Any:
    if isinstance(obj, (set, frozenset)):
        return sorted(obj)
    return str(obj)


def emit_json(data: Any) -> None:
    click.echo(to_json(msgspec.to_builtins(data, enc_hook=_enc)))


def echo(line: Any = "", *, err: bool = False) -> None:
    """Print ONE line of text output (stderr with ``err``); what it quotes is shown visibly."""
    click.echo(visible(line), err=err)


def emit_lines(lines: Iterable[str], *, err: bool = False) -> None:
    """Print each line with :func:`echo`."""
    for line in lines:
        echo(line, err=err)


def whole_number(text: str, what: str) -> int:
    """``"+3"`` -> 3 (ASCII digits, an optional sign, within the bounds of :mod:`cristal_events.bounds`);
    anything else is one sentence naming ``what``."""
    return bounds.parse_int(text, what)


def real_number(text: str, what: str) -> float:
    """``"2,5"`` -> 2.5 (finite, within the bounds); anything else is one sentence naming ``what``."""
    return bounds.parse_real(text, what)


def int_pairs(items: tuple[str, ...], option: str, example: str, *,
              quote: Callable[[str], str] = "'{}'".format) -> dict[str, int]:
    """``("FRC=+1", "CHAR=-1")`` -> {"FRC": 1, "CHAR": -1}: the one KEY=N parser of the command line;
    ``example`` shows the expected form, ``quote`` how the refusal quotes what was typed."""
    out: dict[str, int] = {}
    for pair in items:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise RuleError(f"{option} expects {example}, got {quote(pair)}.")
        out[key.strip()] = whole_number(raw, f"{option} {key.strip()}")
    return out


class BoundedInt(click.ParamType):
    """A click type: :func:`~cristal_events.bounds.parse_int` from ``lo`` to ``hi``."""

    name = "integer"

    def __init__(self, lo: int = -bounds.LIMIT, hi: int = bounds.LIMIT):
        self.lo, self.hi = lo, hi

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            text: Any = str(value)
        else:
            text = value
        what = param.get_error_hint(ctx) if param is not None and ctx is not None else "Value"
        try:
            return bounds.parse_int(text, what, lo=self.lo, hi=self.hi)
        except bounds.OutOfBounds as exc:
            self.fail(str(exc).removeprefix(f"{what} "), param, ctx)


class BoundedReal(click.ParamType):
    """A click type: :func:`~cristal_events.bounds.parse_real` from ``lo`` to ``hi``."""

    name = "number"

    def __init__(self, lo: float = -bounds.REAL_LIMIT, hi: float = bounds.REAL_LIMIT):
        self.lo, self.hi = lo, hi

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        what = param.get_error_hint(ctx) if param is not None and ctx is not None else "Value"
        try:
            return bounds.parse_real(value, what, lo=self.lo, hi=self.hi)
        except bounds.OutOfBounds as exc:
            self.fail(str(exc).removeprefix(f"{what} "), param, ctx)


#: the click types of the command line's numbers
INT = BoundedInt()
REAL = BoundedReal()
POSITION = BoundedInt(0, bounds.POSITION_LIMIT)
SESSION = BoundedInt(1, bounds.POSITION_LIMIT)
SEED = BoundedInt(bounds.SEED_MIN, bounds.SEED_MAX)


def tty_progress(label: str) -> Callable[[int, int], None] | None:
    """A progress line on stderr when it is a terminal; None (quiet) in pipes."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        pct = 100 * done // total if total else 100
        bar = "#" * (pct // 4)
        sys.stderr.write(f"\r{label} [{bar:<25}] {pct:3d}% ({done}/{total})")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show
