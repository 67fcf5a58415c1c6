"""What completes a command's words, from the campaign's state: ONE table for the table console and
for the one-shot CLI's shell completion (click's ``shell_complete``).

:data:`PARAMS` maps a click parameter's name (``fighter``, ``weapon`` ...) to the kind of thing it
names; :data:`SOURCES` maps each kind to a function of the campaign's state that lists the names.
:func:`attach` walks a click command tree and gives each parameter the table names its completion,
so the rulesets' command files need no edits: a new command whose argument is called ``fighter``
completes character ids by itself.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable
from typing import Any

import click

from ..errors import CristalError

COMMANDS: list[click.Command] = []  # every module of cristal_events.cli lists its commands; this one has none

#: a parameter's name -> the kind of name it takes (both rulesets' spellings)
PARAMS: dict[str, str] = {
    **dict.fromkeys(("character_id", "character_ids", "character", "characters", "fighter", "fighters",
                     "target", "targets", "attacker", "caster", "defender", "participants", "healer",
                     "owner", "within"), "character"),
    "fight": "fight",
    "weapon": "weapon", "projectile": "weapon",
    "spell": "spell", "spells": "spell", "potion_spell": "spell",
    "technique": "technique",
    "skill": "skill",
}
#: a parameter whose name means a fight only inside one group (Lois du Cristal's ``combat attack NAME``)
GROUP_PARAMS: dict[tuple[str, str], str] = {("combat", "name"): "fight"}


def _characters(camp: Any, world: Any) -> list[str]:
    ids = set(camp.ruleset.characters(world.rules))
    for fight in _fight_objects(world):  # a fight's extras (a brigand, a wolf) are fighters too
        ids.update(getattr(fight, "fighters", None) or getattr(fight, "participants", ()) or ())
    return sorted(ids)


def _fight_objects(world: Any) -> list[Any]:
    fights = getattr(world.rules, "combats", None)
    if fights is None:
        fights = getattr(world.rules, "fights", {})
    return list(fights.values())


def _fights(camp: Any, world: Any) -> list[str]:
    # the fights under way first: they are the ones a command at the table names
    live = [f for f in _fight_objects(world) if getattr(f, "active", not getattr(f, "ended", False))]
    over = [f for f in _fight_objects(world) if f not in live]
    return [f.name for f in live] + [f.name for f in over]


def _content(camp: Any, world: Any) -> Any:
    if camp.ruleset.name == "illergan":
        from ..rulesets.illergan.state import content_of

        return content_of(world.rules).pack
    from ..rulesets.cristal.characters.derive import content_of as cristal_content

    return cristal_content(world.rules)


def _weapons(camp: Any, world: Any) -> list[str]:
    content = _content(camp, world)
    if camp.ruleset.name == "illergan":
        return sorted(w.name for w in content.weapons)
    return sorted(i.name for i in content.items.values() if i.dmg not in ("", "0") or i.kind)


def _spells(camp: Any, world: Any) -> list[str]:
    content = _content(camp, world)
    if camp.ruleset.name == "illergan":
        return sorted(s.name for s in content.spells)
    return sorted(content.spells)


def _techniques(camp: Any, world: Any) -> list[str]:
    if camp.ruleset.name == "illergan":
        return []
    return sorted(_content(camp, world).techniques)


def _skills(camp: Any, world: Any) -> list[str]:
    if camp.ruleset.name != "illergan":
        return []
    return sorted(s.name for s in _content(camp, world).skills)


#: a kind -> the names the campaign's state has for it (``camp``: the open Campaign, ``world``: its state)
SOURCES: dict[str, Callable[[Any, Any], list[str]]] = {
    "character": _characters, "fight": _fights, "weapon": _weapons, "spell": _spells,
    "technique": _techniques, "skill": _skills,
}


def kind_of(path: Iterable[str], param: click.Parameter) -> str | None:
    """The kind of name ``param`` of the command at ``path`` takes, or None (nothing to complete)."""
    if param.name is None:
        return None
    path = tuple(path)
    for group in path[:-1]:
        found = GROUP_PARAMS.get((group, param.name))
        if found:
            return found
    return PARAMS.get(param.name)


def names(camp: Any, kind: str, incomplete: str = "") -> list[str]:
    """The names of ``kind`` in the campaign's current state that start with ``incomplete`` (any case);
    for a comma list (``--with lia,brok``), the last item is completed."""
    head, sep, last = incomplete.rpartition(",")
    prefix = head + sep
    world = camp.state()
    found = SOURCES[kind](camp, world)
    low = last.casefold()
    return [prefix + n for n in found if n.casefold().startswith(low)]


# ------------------------------------------------------------------ the one-shot CLI's shell completion
def _shell_source(kind: str) -> Callable[[click.Context, click.Parameter, str], list[click.shell_completion.CompletionItem]]:
    def complete(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
        from ..service import Campaign

        root = ctx.find_root()
        db = root.params.get("db") or os.environ.get("CRISTAL_DB", "campaign.db")
        if not os.path.isfile(db):
            return []
        try:
            camp = Campaign.open(db, readonly=True)
        except (CristalError, sqlite3.Error, OSError):  # a Tab on a file that is not a campaign: nothing to say
            return []
        try:
            return [click.shell_completion.CompletionItem(n) for n in names(camp, kind, incomplete)]
        finally:
            camp.close()
    return complete


def attach(cmd: click.Command, path: tuple[str, ...] = ()) -> None:
    """Give every parameter of ``cmd`` and its subcommands that :func:`kind_of` knows its completion.

    click keeps a parameter's ``shell_complete=`` function in ``_custom_shell_complete``; the commands
    are declared in the rulesets' files, so the table sets it here rather than in each declaration."""
    if getattr(cmd, "_cristal_completion", False):  # done once per command object
        return
    cmd._cristal_completion = True  # type: ignore[attr-defined]
    for param in cmd.params:
        kind = kind_of((*path, cmd.name or ""), param)
        if kind is not None and getattr(param, "_custom_shell_complete", None) is None:
            param._custom_shell_complete = _shell_source(kind)
    if isinstance(cmd, click.Group):
        for sub in cmd.commands.values():
            attach(sub, (*path, cmd.name or ""))
