"""The table console: one campaign kept open, each line run through the same click commands as the
terminal (:func:`cristal_events.cli.inprocess.invoke`), a current fight, aliases, completion from the
campaign's state, a history beside the campaign and a bottom bar with the session and the fight.

prompt_toolkit draws the prompt, the completion menu and the bottom bar (a well-kept library for
exactly this: line editing, history search, a toolbar redrawn on each key); when standard input is
not a terminal the lines are read and run one by one with no prompt at all, so a session can be
scripted (``cristal play --db c.db < evening.txt``).
"""

from __future__ import annotations

import contextlib
import io
import shlex
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import click
import msgspec

from ..cli import completion
from ..cli.common import echo
from ..cli.inprocess import Kept, invoke
from ..errors import CristalError
from ..i18n import N_, _
from .words import ALIASES, Resolved, expand, positionals, resolve

#: the console's own words (not click commands) and what each does, for ``help``
CONSOLE_WORDS: dict[str, str] = {
    "fight NAME": N_("make NAME the current fight: the commands that take a fight get it (fight alone: which one)"),
    "help [COMMAND...]": N_("this list, or a command's own --help (help attack)"),
    "exit, quit": N_("leave the console (Ctrl-D too)"),
}
LEAVE = "leave"


def history_path(db: str) -> Path:
    """The console's history of a campaign: the file beside it, ``<campaign>.history``; a PostgreSQL
    campaign's beside its session secret (``store_pg.local_base``), never a file named after its URL."""
    from ..store_pg import is_postgres, local_base

    if is_postgres(db):
        return Path(f"{local_base(db)}.history")
    return Path(f"{db}.history")


class Console:
    """One campaign open at the table; :meth:`run_line` runs one line and says whether it was done."""

    def __init__(self, db: str, *, actor: str = "GM", as_json: bool = False):
        from ..cli import cli

        self.db = db
        self.actor = actor
        self.as_json = as_json  # every command with --json gets it (a script reads JSON Lines)
        self.root: click.Group = cli  # the cristal group (CristalGroup)
        self.kept = Kept(db)
        self.fight: str | None = None
        self.bar = ""
        self._commands: list[str] | None = None
        self.campaign  # noqa: B018  # open it now: a file that is not a campaign is refused before the prompt

    @property
    def campaign(self) -> Any:
        return self.kept(False)

    def close(self) -> None:
        self.kept.close()

    # ------------------------------------------------------------------ reading a line
    def context(self) -> click.Context:
        ctx = click.Context(self.root, info_name="cristal", obj={"shared_campaign": self.kept})
        ctx.params = {"db": self.db}
        return ctx

    def commands(self) -> list[str]:
        """The campaign's commands (its ruleset's and the core's: they do not change while it is open)."""
        if self._commands is None:
            self._commands = self.root.list_commands(self.context())
        return self._commands

    def is_command(self, word: str) -> bool:
        return word in self.commands()

    def resolve(self, words: list[str]) -> Resolved:
        return resolve(self.root, self.db, words, {"shared_campaign": self.kept})

    def fights(self) -> list[str]:
        return completion.names(self.campaign, "fight")

    def expand(self, words: list[str]) -> tuple[list[str], Resolved]:
        return expand(words, resolver=self.resolve, is_command=self.is_command, current=self.fight,
                      fights=self.fights)

    # ------------------------------------------------------------------ running a line
    def run_line(self, line: str) -> bool | str:
        """Run one line: True when done, False when refused (its sentence printed), LEAVE to leave."""
        line = line.strip()
        if not line or line.startswith("#"):
            return True
        try:
            words = shlex.split(line, comments=True)  # "# ..." ends a line (quoted, "#" is text)
        except ValueError:
            return self.refuse(_("The line has an unclosed quote; nothing was run."))
        if not words:
            return True
        head = words[0]
        if head in ("exit", "quit"):
            return LEAVE
        if head == "help":
            return self.help(words[1:])
        if head == "fight":
            return self.set_fight(words[1:])
        if head.startswith("-"):
            return self.refuse(_("The console sets cristal's own options (--db, --actor) itself; start with a command."))
        if head == "play":
            return self.refuse(_("You are in the console already; 'exit' leaves it."))
        return self.run_words(words)

    def run_words(self, words: list[str]) -> bool:
        try:
            words, resolved = self.expand(words)
            if self.as_json and "--json" not in words and any(p.name == "as_json" for p in resolved.command.params):
                words.insert(resolved.start, "--json")
            code = invoke(self.kept, words, actor=self.actor)
        except click.ClickException as exc:
            return self.refuse(exc.format_message())
        except CristalError as exc:  # reading the fights to expand the line (a campaign locked past the timeout)
            return self.refuse(str(exc))
        except click.exceptions.Abort:
            return self.refuse(_("The command was interrupted; nothing more was written."))
        pos = positionals(resolved.command, words, resolved.start)
        if code == 0 and pos and resolved.path == ("combat", "start"):  # a fight just started is the one at hand
            self.fight = words[pos[0]]
        elif code == 0 and pos and resolved.path == ("combat", "end") and words[pos[0]] == self.fight:
            self.fight = None  # over: no command takes it any more
        return code == 0

    def refuse(self, sentence: str) -> bool:
        echo(_("Error: {message}").format(message=sentence), err=True)
        return False

    def set_fight(self, args: list[str]) -> bool:
        try:
            return self._set_fight(args)
        except CristalError as exc:
            return self.refuse(str(exc))

    def _set_fight(self, args: list[str]) -> bool:
        if not args:
            if self.as_json:
                click.echo(msgspec.json.encode({"fight": self.fight}).decode())
            else:
                echo(_("Current fight: {fight}.").format(fight=self.fight) if self.fight
                     else _("No current fight; 'fight NAME' sets one."))
            return True
        if len(args) > 1:
            return self.refuse(_("'fight' takes one fight's name, like: fight gue."))
        known = self.fights()
        if args[0] not in known:
            listed = ", ".join(known) or _("none yet ('combat start NAME --with ...' starts one)")
            return self.refuse(_("No fight is named '{name}'; fights: {listed}.").format(name=args[0], listed=listed))
        self.fight = args[0]
        if self.as_json:
            click.echo(msgspec.json.encode({"fight": self.fight}).decode())
        else:
            echo(_("Current fight: {fight}.").format(fight=self.fight))
        return True

    def help(self, args: list[str]) -> bool:
        if args:
            return self.run_words([*args, "--help"])
        echo(_("Console words:"))
        for word, what in CONSOLE_WORDS.items():
            echo(f"  {word:20} {_(what)}")
        echo(_("Aliases (used when the campaign has no command of that name):"))
        for alias, words in ALIASES.items():
            if not self.is_command(alias):
                echo(f"  {alias:20} {words}")
        echo(_("Commands (as after 'cristal --db CAMPAIGN'; 'help COMMAND' for one):"))
        ctx = self.context()
        for name in self.commands():
            cmd = self.root.get_command(ctx, name)
            if cmd is not None and name != "play":
                echo(f"  {name:20} {cmd.get_short_help_str(limit=56)}")
        echo(_("With a current fight, 'attack thor york 14,5' is 'combat attack FIGHT thor york --dice 14,5'."))
        return True

    # ------------------------------------------------------------------ the bottom bar
    def _json(self, words: list[str]) -> Any:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = invoke(self.kept, [*words, "--json"], actor=self.actor)
        text = out.getvalue().strip()
        if code != 0 or not text:
            return None
        lines = text.splitlines()
        if len(lines) > 1:
            return [msgspec.json.decode(x) for x in lines]
        return msgspec.json.decode(text)

    def refresh_bar(self) -> str:
        """The bottom bar: the open session, then the current fight's timeline (next first, IT and PV)."""
        world = self.campaign.state()
        core = world.core
        if core.session:
            title = core.session_titles.get(core.session, "")
            parts = [_("Session {number} « {title} »").format(number=core.session, title=title) if title
                     else _("Session {number}").format(number=core.session)]
        else:
            parts = [_("No session open")]
        if self.fight:
            try:
                parts.append(self._fight_line(self.fight))
            except (click.ClickException, msgspec.DecodeError, KeyError, TypeError):
                parts.append(_("{fight}: not readable").format(fight=self.fight))
        self.bar = " | ".join(parts)
        return self.bar

    def _fight_line(self, name: str) -> str:
        if self.campaign.ruleset.name == "illergan":
            from ..cli.fight_panel import panel

            events = self._json(["log", "--stream", f"fight:{name}"]) or []
            events = events if isinstance(events, list) else [events]
            party = self._json(["characters"]) or []
            shown = panel(name, events, party)
            if shown is None:
                return _("{fight}: over").format(fight=name)
            fighters = " · ".join(
                f"{f['id']} ini {f['score'] if f['score'] is not None else '-'} PV {f['pv'] if f['pv'] is not None else '-'}"
                for f in shown["participants"])
            nxt = _("next {id}").format(id=shown["next"]) if shown["next"] else _("initiative to roll")
            return _("{fight}: {next} · {fighters}").format(fight=name, next=nxt, fighters=fighters)
        shown = self._json(["combat", "show", name])
        if shown is None:
            return _("{fight}: not readable").format(fight=name)
        if not shown.get("active", True):
            return _("{fight}: over").format(fight=name)
        line = sorted(shown["participants"], key=lambda f: (not f.get("next"), f["it"]))
        fighters = " · ".join(f"{f['id']} IT {f['it']} PV {f['pv'] if f['pv'] is not None else '-'}" for f in line)
        nxt = _("next {id}").format(id=shown["next"]) if shown.get("next") else _("next: tie to break ('next')")
        return _("{fight}: {next} · {fighters}").format(fight=name, next=nxt, fighters=fighters)

    # ------------------------------------------------------------------ the loops
    def prompt_text(self) -> str:
        from ..store_pg import is_postgres, parse_target

        name = parse_target(self.db).campaign if is_postgres(self.db) else Path(self.db).name.removesuffix(".db")
        return f"{name} {self.fight}> " if self.fight else f"{name}> "

    def run_lines(self, lines: Iterable[str]) -> int:
        """Run piped lines one by one (no prompt); the exit status: 1 when a line was refused, else 0."""
        status = 0
        for line in lines:
            done = self.run_line(line)
            if done == LEAVE:
                break
            if done is False:
                status = 1
        return status

    def interact(self, **session_options: Any) -> int:
        """The prompt_toolkit console at a terminal."""
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory

        from .completer import ConsoleCompleter

        self.refresh_bar()
        session: PromptSession[str] = PromptSession(
            history=FileHistory(str(history_path(self.db))), completer=ConsoleCompleter(self),
            bottom_toolbar=lambda: self.bar, complete_while_typing=False, **session_options)
        echo(_("cristal play: 'help' lists the commands and aliases, 'exit' or Ctrl-D leaves."))
        while True:
            try:
                line = session.prompt(self.prompt_text())
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            try:
                if self.run_line(line) == LEAVE:
                    break
                self.refresh_bar()
            except CristalError as exc:  # the campaign unreadable for a moment (locked): say it, go on
                self.refuse(str(exc))
        return 0


def stdin_lines() -> Iterator[str]:
    yield from sys.stdin
