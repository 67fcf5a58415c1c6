"""Small helpers shared by the command modules: opening the campaign, output, dice lists.

Every line of TEXT output goes through :func:`echo` (or :func:`emit_lines`), which shows each control
and format character a value carries visibly (:func:`cristal_events.display.visible`): one call is one
line, so a newline inside a name is shown as ``⏎`` and cannot fake a line. ``--json`` output
(:func:`emit_json`) is exact JSON, which escapes control characters itself (and :func:`to_json` the
C1 and format characters).
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable, Iterable
from typing import Any, NoReturn

import click
import msgspec

from .. import bounds, i18n
from ..display import inert_json, visible
from ..errors import CristalError, DiceError
from ..i18n import _
from ..service import Campaign, RecordedEvent

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts instead of text.")
SECRET_KEY = "cristal.secret"
#: the last session's secret rolls still sealed, as :func:`run` found them on the campaign it opened
#: (``cli._sealed_notice`` prints their count without a connection of its own)
SEALED_KEY = "cristal.sealed"


def _remember_secret(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
    ctx.meta[SECRET_KEY] = value
    return value


#: ``--secret``: the game master's secret roll (docs/verifiable-dice.md, "Secret rolls"); it reaches
#: :func:`run` through the context, so no rolling command has to take it as a parameter
secret_option = click.option(
    "--secret", is_flag=True, expose_value=False, callback=_remember_secret,
    help="The game master's secret roll: the log keeps only a commitment until 'session end' or "
         "'cristal reveal POSITION'; only this output shows the faces.")


def dice_option_with(help: str, metavar: str = "F[,F...]") -> Any:
    """The one ``--dice`` option (faces ``13,4,4`` parsed by the click type :data:`FACES` into a list of
    ints before the campaign is touched), with the sentence of the command's own dice, and ``--secret``."""
    dice = click.option("--dice", "dice", type=FACES, metavar=metavar, default=None, help=help)

    def both(fn: Any) -> Any:
        return secret_option(dice(fn))

    return both


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


def run(ctx: click.Context, command: Any, as_json: bool, dice: list[int] | None = None, *,
        then: Callable[[Campaign], tuple[dict[str, Any], Callable[[], None]]] | None = None) -> list[RecordedEvent]:
    """Execute ``command`` on the campaign of ``--db`` (its read models following) with the faces of
    ``--dice`` (``[13, 4, 4]``, parsed by :data:`FACES`; None: the engine rolls), and print what was recorded: a line
    ``position  summary`` per event, or with ``--json`` the list of the events.

    ``then(camp)``, when given, is what to show after the events, as ``(json, print_text)``: the JSON
    becomes ``{"events": [...], **json}`` (each event without its stream) and ``print_text()`` prints
    its lines after the events' (the combat commands show the combat so)."""
    camp = open_campaign(ctx, write=True)
    secret = bool(ctx.meta.get(SECRET_KEY))
    recs = camp.execute(command, actor=actor(ctx), faces=dice, secret=secret)
    if ctx.obj.get("shared_campaign") is None:
        ctx.meta[SEALED_KEY] = _still_sealed(camp)
    if camp.last_sealed:  # a secret roll: its events, for the game master's eyes only
        return _show_sealed(camp, recs, as_json)
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


def _still_sealed(camp: Campaign) -> list[int] | None:
    """The positions of the last session's secret rolls still sealed, read on the campaign the command
    ran on (its state is current: the command was decided on it), as ``cli.inprocess.Kept.sealed``
    reads them; None when they cannot be read (the notice peeks then, as before)."""
    try:
        start = camp.store.last_session_start()
        if start is None:
            return []
        return [p for p in camp.state().core.sealed if p > start]
    except (CristalError, sqlite3.Error):
        return None


def _show_sealed(camp: Campaign, recs: list[RecordedEvent], as_json: bool) -> list[RecordedEvent]:
    """What a secret command prints: the ``roll.sealed`` event the log holds, then the events it
    sealed (the faces), which only this output shows."""
    position = recs[0].position if recs else 0
    if as_json:
        emit_json({"events": [{"position": r.position, "type": r.type, "event": msgspec.to_builtins(r.event),
                               "summary": camp.summarize(r)} for r in recs],
                   "sealed": {"position": position,
                              "events": [{"type": r.type, "event": msgspec.to_builtins(r.event),
                                          "summary": camp.summarize(r)} for r in camp.last_sealed]}})
        return recs
    for r in recs:
        echo(f"{r.position:>6}  {camp.summarize(r)}")
    echo(_("Secret roll sealed at position {position}: only you see what it did, until 'session end' or "
           "'cristal reveal {position}':").format(position=position))
    for r in camp.last_sealed:
        echo(f"{_('sealed'):>6}  {camp.summarize(r)}")
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


def refuse_value(sentence: str, ctx: click.Context | None) -> NoReturn:
    """A value the command line cannot take: click's usage error (exit 2, nothing written) whose message is
    exactly ``sentence`` (the web and console faces show it as is)."""
    raise click.UsageError(sentence, ctx)


class BoundedInt(click.ParamType):
    """A click type: :func:`~cristal_events.bounds.parse_int` from ``lo`` to ``hi``. Without ``what`` a bad
    value is click's "Invalid value for '--opt': ..."; with it (:meth:`named`), the sentence names ``what``
    ("XP amount '6O' is not a whole number.")."""

    name = "integer"

    def __init__(self, lo: int = -bounds.LIMIT, hi: int = bounds.LIMIT, what: str = ""):
        self.lo, self.hi, self.what = lo, hi, what

    def named(self, what: str) -> BoundedInt:
        """The same bounds, a refusal naming ``what``."""
        return BoundedInt(self.lo, self.hi, what)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            text: Any = str(value)
        else:
            text = value
        what = (i18n.translate_any(self.what) if self.what  # a name marked N_ where the type is made
                else param.get_error_hint(ctx) if param is not None and ctx is not None else _("Value"))
        try:
            return bounds.parse_int(text, what, lo=self.lo, hi=self.hi)
        except bounds.OutOfBounds as exc:
            if self.what:
                refuse_value(str(exc), ctx)
            self.fail(str(exc).removeprefix(f"{what} "), param, ctx)


class BoundedReal(click.ParamType):
    """A click type: :func:`~cristal_events.bounds.parse_real` from ``lo`` to ``hi`` (``what``: as
    :class:`BoundedInt`)."""

    name = "number"

    def __init__(self, lo: float = -bounds.REAL_LIMIT, hi: float = bounds.REAL_LIMIT, what: str = ""):
        self.lo, self.hi, self.what = lo, hi, what

    def named(self, what: str) -> BoundedReal:
        """The same bounds, a refusal naming ``what``."""
        return BoundedReal(self.lo, self.hi, what)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        what = (i18n.translate_any(self.what) if self.what  # a name marked N_ where the type is made
                else param.get_error_hint(ctx) if param is not None and ctx is not None else _("Value"))
        try:
            return bounds.parse_real(value, what, lo=self.lo, hi=self.hi)
        except bounds.OutOfBounds as exc:
            if self.what:
                refuse_value(str(exc), ctx)
            self.fail(str(exc).removeprefix(f"{what} "), param, ctx)


class IntPair(click.ParamType):
    """A click type, the one KEY=N parser of the command line: ``"FRC=+1"`` -> ``("FRC", 1)``; a
    ``multiple=True`` option gives a tuple of pairs (``dict(pairs)``: a later KEY wins). ``example`` shows
    the expected form, ``quote`` how the refusal quotes what was typed; the sentence names the option
    ("--set expects STAT=N like FRC=+1, got 'FRC'.", "--set FRC 'x' is not a whole number.")."""

    name = "KEY=N"

    def __init__(self, example: str, *, quote: Callable[[str], str] = "'{}'".format):
        self.example, self.quote = example, quote

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> tuple[str, int]:
        if isinstance(value, tuple):  # a default already parsed
            return value
        option = param.opts[0] if param is not None and param.opts else "Value"
        key, sep, raw = str(value).partition("=")
        if not sep or not key.strip():
            refuse_value(f"{option} expects {self.example}, got {self.quote(str(value))}.", ctx)
        try:
            return key.strip(), bounds.parse_int(raw, f"{option} {key.strip()}")
        except bounds.OutOfBounds as exc:
            refuse_value(str(exc), ctx)


class Faces(click.ParamType):
    """A click type, the faces of ``--dice``: ``"13,4,4"`` (or ``;``) -> ``[13, 4, 4]`` by
    :func:`parse_faces`; a malformed list is its one sentence ("--dice face 'x' is not a whole number;
    give faces like 13,4,4.")."""

    name = "faces"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> list[int]:
        if isinstance(value, list):
            return value
        try:
            faces = parse_faces(str(value))
        except DiceError as exc:
            refuse_value(str(exc), ctx)
        assert faces is not None  # parse_faces gives None only for None
        return faces


#: the click types of the command line's numbers
INT = BoundedInt()
REAL = BoundedReal()
POSITION = BoundedInt(0, bounds.POSITION_LIMIT)
SESSION = BoundedInt(1, bounds.POSITION_LIMIT)
SEED = BoundedInt(bounds.SEED_MIN, bounds.SEED_MAX)
FACES = Faces()

dice_option = dice_option_with("The faces rolled at the table, in the order the rule rolls them; without it the "
                               "engine rolls.")


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
