"""Small helpers shared by the command modules: opening the campaign, output, dice lists.

Every line of TEXT output goes through :func:`echo` (or :func:`emit_lines`), which shows each control
and format character a value carries visibly (:func:`cristal_events.display.visible`): one call is one
line, so a newline inside a name is shown as ``⏎`` and cannot fake a line. ``--json`` output
(:func:`emit_json`) is exact JSON, which escapes control characters itself (and :func:`to_json` the
C1 and format characters).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import click
import msgspec

from ..display import inert_json, visible
from ..errors import DiceError, RuleError
from ..service import Campaign

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts instead of text.")
dice_option = click.option(
    "--dice", "dice", metavar="F[,F...]", default=None,
    help="The faces rolled at the table, in the order the rule rolls them; without it the engine rolls.",
)


def open_campaign(ctx: click.Context, *, write: bool = False) -> Campaign:
    """Open the campaign of ``--db``; for writes, attach the projections so read models follow."""
    camp = Campaign.open(ctx.obj["db"], readonly=False)
    if write:
        import projections

        projections.attach(camp)
    ctx.call_on_close(camp.close)
    return camp


def actor(ctx: click.Context) -> str:
    return ctx.obj["actor"]


def parse_faces(text: str | None) -> list[int] | None:
    """``"13,4,4"`` -> [13, 4, 4]; a malformed list is one clear DiceError."""
    if text is None:
        return None
    parts = [p.strip() for p in text.replace(";", ",").split(",") if p.strip()]
    if not parts:
        raise DiceError("--dice needs at least one face, e.g. --dice 13,4,4.")
    faces = []
    for p in parts:
        try:
            faces.append(int(p))
        except ValueError:
            raise DiceError(f"--dice: {p!r} is not a whole number; give faces like 13,4,4.") from None
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
    """``"+3"`` -> 3; anything else is one sentence naming ``what``."""
    try:
        return int(str(text).strip())
    except ValueError:
        raise RuleError(f"{what} '{text}' is not a whole number.") from None


def int_pairs(items: tuple[str, ...], option: str, example: str) -> dict[str, int]:
    """``("FRC=+1", "CHAR=-1")`` -> {"FRC": 1, "CHAR": -1}; ``example`` shows the expected form."""
    out: dict[str, int] = {}
    for pair in items:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise RuleError(f"{option} expects {example}, got '{pair}'.")
        out[key.strip()] = whole_number(raw, f"{option} {key.strip()}")
    return out
