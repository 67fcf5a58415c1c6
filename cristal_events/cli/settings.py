"""``cristal settings``: every setting of the campaign's ruleset, its value, its default and the book's line.

Generic over :class:`~cristal_events.ruleset.Ruleset`: the settings are the fields of the ruleset's
``settings_type``; what each one decides and its line in the book come from the ``SETTINGS_BOOK``
dict of the ruleset's module (``{key: (line, meaning)}``), when it has one. The same rows are listed
by ``cristal init --help`` for every ruleset (:func:`settings_epilog`).
"""

from __future__ import annotations

import importlib
from typing import Any

import click
import msgspec

from ..errors import CristalError
from ..i18n import _
from ..ruleset import Ruleset
from ..rulesets import get as ruleset_get
from ..rulesets import names as ruleset_names
from .common import echo, emit_json, json_option, open_campaign


def parse_settings(pairs: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise CristalError(_("--set expects KEY=VALUE, got {pair!r}.").format(pair=pair))
        try:
            out[key.strip()] = msgspec.json.decode(raw)
        except msgspec.DecodeError:
            out[key.strip()] = raw
    return out


def setting_rows(ruleset: Ruleset, current: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """One row per setting of ``ruleset``: key, type, default, current value (``current``, else the
    default), the book's line and what it decides."""
    book: dict[str, tuple[str, str]] = getattr(importlib.import_module(type(ruleset).__module__), "SETTINGS_BOOK", {})
    defaults = ruleset.default_settings()
    values = {**defaults, **(current or {})}
    rows = []
    for field in msgspec.structs.fields(ruleset.settings_type):
        line, meaning = book.get(field.name, ("", ""))
        rows.append({"key": field.name, "type": getattr(field.type, "__name__", str(field.type)),
                     "value": values.get(field.name), "default": defaults.get(field.name),
                     "line": line, "meaning": meaning})
    return rows


def _show(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def settings_epilog() -> str:
    """The settings of every known ruleset, for ``cristal init --help``."""
    parts = ["Settings (--set KEY=VALUE; default, the book's line):"]
    for name in ruleset_names():
        rs = ruleset_get(name)
        parts.append(f"{name}:")
        for r in setting_rows(rs):
            parts.append(f"  {r['key']}={_show(r['default'])}  {r['line'] or '-'}  {r['meaning']}".rstrip())
    parts.append("every ruleset:")  # the core's own settings (fudge_policy, the requests' approval_*)
    for r in core_rows({}):
        parts.append(f"  {r['key']}={r['default']}  -  {r['meaning']}".rstrip())
    return "\n".join(parts)


class InitCommand(click.Command):
    """A command whose help ends with the settings of every ruleset (computed when the help is shown)."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)
        formatter.write_paragraph()
        with formatter.indentation():
            for text in settings_epilog().splitlines():
                formatter.write_text(text)


def core_rows(current: dict[str, Any]) -> list[dict[str, Any]]:
    """The core's own settings (``fudge_policy``), rows like :func:`setting_rows`'."""
    from ..service import CORE_SETTINGS, core_setting

    meaning = {"fudge_policy": "What 'cristal override' may do: forbidden, disclosed (shown at once) or sealed "
                               "(revealed with the session's secret rolls)",
               "approval_xp_purchase": "A player's XP purchase at the web table: gm (a request the game master "
                                       "approves) or free (it runs)",
               "approval_heal": "A player's heal outside a fight at the web table: gm (a request) or free",
               "approval_correction": "A player's correction of their own entry at the web table: gm (a request) "
                                      "or free"}
    return [{"key": key, "type": "str", "value": core_setting(current, key), "default": default,
             "line": "", "meaning": meaning.get(key, "")} for key, (default, _) in CORE_SETTINGS.items()]


@click.command("settings")
@click.option("--set", "change", default=None, metavar="KEY=VALUE",
              help="Change one setting mid-campaign: a visible 'campaign.setting_changed' event (with --reason).")
@click.option("--reason", default="", help="Why the setting changes (shown in the log).")
@json_option
@click.pass_context
def settings_cmd(ctx: click.Context, change: str | None, reason: str, as_json: bool) -> None:
    """Every setting of the campaign: its current value, its default and the book's line ('init --set
    KEY=VALUE' chooses them, docs/rulings.md explains them); --set KEY=VALUE changes one, visibly.

    Example: cristal --db table.db settings --set fudge_policy=sealed --reason "the table agreed"
    """
    if change is not None:
        from ..service import ChangeSetting
        from .common import actor

        ((key, value),) = parse_settings((change,)).items()
        camp = open_campaign(ctx, write=True)
        recs = camp.execute(ChangeSetting(key=key, value=value, reason=reason), actor=actor(ctx))
        if as_json:
            emit_json([{"position": e.position, "type": e.type, "event": msgspec.to_builtins(e.event),
                        "summary": camp.summarize(e)} for e in recs])
        else:
            for rec in recs:
                echo(f"{rec.position:>6}  {camp.summarize(rec)}")
        return
    camp = open_campaign(ctx, readonly=True)
    current = dict(camp.state().core.settings)
    rows = setting_rows(camp.ruleset, current) + core_rows(current)
    if as_json:
        emit_json({"ruleset": camp.ruleset.name, "settings": rows})
        return
    echo(_("Settings of {title}:").format(title=camp.ruleset.title))
    for r in rows:
        changed = "" if r["value"] == r["default"] else "   " + _("(changed)")
        echo(f"  {r['key']:<34} {_show(r['value']):<7} {_('default')} {_show(r['default']):<7} {r['line'] or '-':<12}"
             f" {r['meaning']}{changed}".rstrip())


COMMANDS = [settings_cmd]
