"""How the console reads a line: its aliases (one table), the current fight put where a command takes
its fight, and a last word of faces taken as ``--dice``. Pure functions over the click tree."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import click

from ..cli.completion import kind_of

#: the console's short words: an alias -> the words it stands for (used only when the campaign has
#: no command of that name: Illergan's own ``cast`` wins over the alias); ``help`` lists them
ALIASES: dict[str, str] = {
    "a": "combat attack", "attack": "combat attack",
    "c": "combat cast",
    "n": "combat next", "next": "combat next",
    "p": "combat pass", "pass": "combat pass",
    "act": "combat act",
    "ini": "combat initiative", "initiative": "combat initiative",
    "show": "combat show", "s": "combat show",
    "join": "combat join",
    "release": "combat release",
    "defend": "combat defend",
    "ch": "characters",
    "l": "log",
}
FACES = re.compile(r"^\d+(,\d+)*$")
_NUMBER = re.compile(r"^-\d")


class Resolved:
    """The click command a line names: its path, the command, and where its own words start."""

    def __init__(self, path: tuple[str, ...], command: click.Command, start: int):
        self.path = path
        self.command = command
        self.start = start


def resolve(root: click.Group, db: str, words: list[str], obj: dict[str, Any] | None = None) -> Resolved:
    """Walk the click tree along ``words`` (a word that names no subcommand ends the walk); ``obj``:
    the root context's object (the campaign kept open, whose ruleset picks the commands)."""
    ctx = click.Context(root, info_name="cristal", obj=obj or {}, resilient_parsing=True)
    ctx.params = {"db": db}
    cmd: click.Command = root
    path: list[str] = []
    i = 0
    while isinstance(cmd, click.Group) and i < len(words):
        sub = cmd.get_command(ctx, words[i])
        if sub is None:
            break
        path.append(words[i])
        ctx = click.Context(sub, parent=ctx, info_name=words[i], resilient_parsing=True)
        cmd = sub
        i += 1
    return Resolved(tuple(path), cmd, i)


def positionals(command: click.Command, words: list[str], start: int) -> list[int]:
    """The indexes of ``words[start:]`` that are arguments (not options nor option values)."""
    opts: dict[str, click.Option] = {}
    for p in command.params:
        if isinstance(p, click.Option):
            for o in (*p.opts, *p.secondary_opts):
                opts[o] = p
    found: list[int] = []
    i = start
    while i < len(words):
        w = words[i]
        if w == "--":
            found.extend(range(i + 1, len(words)))
            break
        if w.startswith("-") and len(w) > 1 and not _NUMBER.match(w):
            opt = opts.get(w.split("=", 1)[0])
            if opt is not None and "=" not in w and not opt.is_flag and not opt.count:
                i += opt.nargs
        else:
            found.append(i)
        i += 1
    return found


def fight_argument(resolved: Resolved) -> bool:
    """Whether the command's first argument names the fight (``combat attack NAME``, ``combat next
    FIGHT``) and it acts on one under way (``combat start`` names a new one)."""
    if resolved.path[-1:] == ("start",):
        return False
    args = [p for p in resolved.command.params if isinstance(p, click.Argument)]
    return bool(args) and kind_of(resolved.path, args[0]) == "fight"


def expand(words: list[str], *, resolver: Callable[[list[str]], Resolved], is_command: Callable[[str], bool],
           current: str | None, fights: Callable[[], list[str]]) -> tuple[list[str], Resolved]:
    """The words the click command gets: an alias expanded, the current fight put where the command
    takes its fight (unless the line names a fight there), a last word of faces given as ``--dice``."""
    words = list(words)
    if words and not is_command(words[0]) and words[0] in ALIASES:
        words = [*ALIASES[words[0]].split(), *words[1:]]
    resolved = resolver(words)
    if isinstance(resolved.command, click.Group):
        return words, resolved
    pos = positionals(resolved.command, words, resolved.start)
    if current is not None and fight_argument(resolved) and not (pos and words[pos[0]] in fights()):
        at = pos[0] if pos else len(words)
        words.insert(at, current)
        pos = [at, *[p + 1 for p in pos]]
    params: dict[str, Any] = {p.name: p for p in resolved.command.params}
    arguments = [p for p in resolved.command.params if isinstance(p, click.Argument)]
    fixed = all(a.nargs >= 1 for a in arguments)
    given_dice = any(w == "--dice" or w.startswith("--dice=") for w in words[resolved.start:])
    if ("dice" in params and not given_dice and fixed and pos and len(pos) > sum(a.nargs for a in arguments)
            and FACES.match(words[pos[-1]])):
        words[pos[-1]:pos[-1] + 1] = ["--dice", words[pos[-1]]]
    return words, resolved
