"""The console's completion for prompt_toolkit: the words a line may take next, from the click tree
(commands, subcommands, option names) and from the campaign's state through the one completion table
(:mod:`cristal_events.cli.completion`), the same one the shell completion of ``cristal`` uses."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from typing import Any

import click
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from ..cli import completion
from ..errors import CristalError
from .words import ALIASES, fight_argument, positionals


def split(text: str) -> tuple[list[str], str]:
    """The finished words of ``text`` and the word being typed (its opening quote dropped)."""
    if not text or text[-1].isspace():
        try:
            return shlex.split(text), ""
        except ValueError:
            pass
    for closing in ("", '"', "'"):
        try:
            words = shlex.split(text + closing)
        except ValueError:
            continue
        return (words[:-1], words[-1]) if words else ([], "")
    return [], ""


def candidates(console: Any, done: list[str], incomplete: str) -> list[str]:
    """What may come after the words ``done``, starting with ``incomplete``."""
    def starting(names: Any) -> list[str]:
        return [n for n in names if n.startswith(incomplete)]

    if not done:
        heads = ["fight", "help", "exit", "quit", *ALIASES, *console.commands()]
        return starting(sorted(set(heads) - {"play"}))
    if done[0] == "fight":
        return completion.names(console.campaign, "fight", incomplete) if len(done) == 1 else []
    words = done[1:] if done[0] == "help" else done
    if not words:
        return starting(sorted(set(ALIASES) | set(console.commands())))
    words, resolved = console.expand([*words])
    cmd = resolved.command
    if isinstance(cmd, click.Group):
        return starting(sorted(cmd.commands)) if resolved.start == len(words) else []
    if done[0] == "help":
        return []
    if incomplete.startswith("-"):
        opts = sorted({o for p in cmd.params if isinstance(p, click.Option) for o in (*p.opts, *p.secondary_opts)})
        return starting([*opts, "--help"])
    previous = words[-1] if len(words) > resolved.start else ""
    for p in cmd.params:
        if isinstance(p, click.Option) and previous in p.opts and not p.is_flag and not p.count:
            kind = completion.kind_of(resolved.path, p)
            return completion.names(console.campaign, kind, incomplete) if kind else []
    arguments = [p for p in cmd.params if isinstance(p, click.Argument)]
    index = len(positionals(cmd, words, resolved.start))
    if console.fight is not None and fight_argument(resolved) and index == 0:
        index = 1  # the console puts the current fight there (a fight's name typed instead also completes)
        names = completion.names(console.campaign, "fight", incomplete)
        kind = completion.kind_of(resolved.path, arguments[1]) if len(arguments) > 1 else None
        return names + (completion.names(console.campaign, kind, incomplete) if kind else [])
    slot = 0
    for arg in arguments:
        if arg.nargs < 0 or index < slot + arg.nargs:
            kind = completion.kind_of(resolved.path, arg)
            return completion.names(console.campaign, kind, incomplete) if kind else []
        slot += arg.nargs
    return []


def quoted(word: str) -> str:
    return shlex.quote(word) if any(c.isspace() or c in "'\"\\" for c in word) else word


class ConsoleCompleter(Completer):
    def __init__(self, console: Any):
        self.console = console

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        text = document.text_before_cursor
        done, incomplete = split(text)
        start = text.rfind(" ") + 1 if incomplete else len(text)
        if incomplete and text[start:].lstrip("\"'") != incomplete:  # a quoted word with spaces
            for quote in ('"', "'"):
                at = text.rfind(quote)
                if at >= 0 and text[at + 1:] == incomplete:
                    start = at
                    break
        try:
            found = candidates(self.console, done, incomplete)
        except (click.ClickException, CristalError):  # nothing to offer while the campaign is unreadable
            return
        for name in found:
            yield Completion(quoted(name), start_position=start - len(text))
