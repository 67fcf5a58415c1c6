"""The ``cristal`` command line: a thin face over the Python API.

Commands live one module per noun in this package (each defines ``COMMANDS``, a list of click
commands, found automatically). A ruleset adds its own commands in the module its ``cli_module``
declares (``PARTS`` or ``commands()``; the built-in ones are the packages ``cli/cristal/`` and
``cli/illergan/``); the ruleset of the campaign named by ``--db`` decides which ones exist, so
``cristal character create`` speaks Lois du Cristal or Illergan according to the campaign.
Every :class:`~cristal_events.errors.CristalError` becomes ``Error: <sentence>`` and exit 1, here
and nowhere else; every error message (click's own usage errors too) is shown with its control
characters visible (:func:`cristal_events.display.visible`), so a name an error quotes cannot act
on the terminal.
"""

from __future__ import annotations

import atexit
import importlib
import inspect
import os
import sqlite3
import sys
from functools import cache
from typing import Any

from .. import imports_paused

with imports_paused():  # the process's modules: cristal_events.imports_paused says why
    import click

    from .. import __version__, i18n
    from ..display import visible
    from ..errors import CristalError
    from ..i18n import N_, _
    from ..rulesets import BUILTIN as BUILTIN_RULESETS
    from ..rulesets import get as ruleset_get
    from ..rulesets import names as ruleset_names

i18n.translate_click()  # click's own texts ("Usage:", "Error: ...") in the current language too

#: the core commands and the module (in this package) that defines each; a test checks it
#: against the modules' ``COMMANDS`` lists. Only the module of the command typed is imported.
CORE = {
    "init": "campaign", "session": "campaign", "log": "campaign", "verify": "campaign", "receipt": "campaign",
    "schema": "campaign",
    "note": "campaign", "rebuild": "campaign", "correct": "correct", "replay": "replay", "audit": "audit",
    "export": "export", "import": "export", "demo": "demo", "script": "script", "sheet": "sheet",
    "characters": "sheet", "copy": "copy", "access": "cristal_events.web.cli", "serve": "cristal_events.web.cli", "settings": "settings",
    "reveal": "secret", "override": "secret", "reroll": "secret",
    "dice": "dice", "recap": "recap", "requests": "requests",
    "play": "cristal_events.console.cli",
}


@cache
def module_commands(module: str) -> dict[str, click.Command]:
    """The commands of one module: ``module`` in this package, or a dotted module name."""
    mod = importlib.import_module(module if "." in module else f"{__name__}.{module}")
    return {cmd.name: cmd for cmd in mod.COMMANDS}


def core_commands() -> dict[str, click.Command]:
    """Every core command (imports every command module: for listings and tests)."""
    import pkgutil
    found: dict[str, click.Command] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if not info.name.startswith("_") and info.name != "common" and not info.ispkg:  # packages: rulesets' CLIs
            found.update(module_commands(info.name))
    for module in sorted({m for m in CORE.values() if "." in m}):  # faces above the CLI (the web table's commands)
        found.update(module_commands(module))
    return found


@cache
def _ruleset_cli(name: str) -> Any:
    """The ruleset's CLI module (its ``cli_module`` declaration; None when it has none)."""
    path = ruleset_get(name).cli_module
    return importlib.import_module(path) if path else None


@cache
def ruleset_commands(name: str) -> dict[str, click.Command]:
    """Every command of a ruleset: the ``COMMANDS`` of each module its cli module's ``PARTS`` names,
    or what its ``commands()`` returns."""
    mod = _ruleset_cli(name)
    if mod is None:
        return {}
    parts = getattr(mod, "PARTS", None)
    if parts is None:
        return {c.name: c for c in mod.commands()}
    found: dict[str, click.Command] = {}
    for part in dict.fromkeys(parts.values()):
        found.update(module_commands(f"{mod.__package__}.{part}"))
    return found


def ruleset_command(name: str, cmd_name: str) -> click.Command | None:
    """One command of a ruleset: from the module its ``PARTS`` names (only that module is imported),
    else from all of its commands."""
    mod = _ruleset_cli(name)
    if mod is None:
        return None
    part = getattr(mod, "PARTS", {}).get(cmd_name)
    if part is not None:
        return module_commands(f"{mod.__package__}.{part}").get(cmd_name)
    return ruleset_commands(name).get(cmd_name)


def _listed(ruleset: str, lang: str | None = None) -> dict[str, str] | None:
    """The static listing of a built-in ruleset's commands (name -> first paragraph of its help, in
    ``lang``; :mod:`.listing`), or None for a ruleset it does not hold."""
    from . import listing  # the --help listing's table: a command typed needs none of it

    table = listing.LISTING.get(ruleset) if ruleset in BUILTIN_RULESETS else None
    return None if table is None else table[lang or i18n.current()]


def campaign_ruleset(path: str | os.PathLike[str]) -> str | None:
    """The ruleset named in a campaign file's first event, or None when it cannot be read."""
    from ..store import Store

    return Store.ruleset_of(path)


#: click's own help texts, translated by the core's catalog like the commands' own
CLICK_TEXTS = (N_("Show this message and exit."), N_("Show the version and exit."))


class Refused(click.ClickException):
    """A refused command: ``Error: <sentence>`` (``Erreur : ...`` in French) and exit 1."""

    def show(self, file: Any = None) -> None:
        from .common import echo

        echo(_("Error: {message}").format(message=self.format_message()), err=True)


def localized(cmd: click.Command, lang: str | None = None) -> click.Command:
    """``cmd`` with its help texts (its docstring, its options' ``help``, its subcommands', recursively)
    in the current language: a copy, made once per command and language. The help texts are English
    msgids looked up when shown (``i18n.translate_any``: the core's catalog, then each ruleset's), not when
    the command modules are imported, so that ``--lang`` works in a process that imported them already."""
    lang = lang or i18n.current()
    if lang == i18n.LANGUAGES[0]:
        # English: every catalog is gettext's NullTranslations (the msgids are the English texts, i18n.Domain),
        # so the copy would hold the same texts; the command itself, without the copies (nor the copy module)
        return cmd
    import copy as _copy

    key = (id(cmd), lang)
    found = _LOCALIZED.get(key)
    if found is not None and found[0] is cmd:
        return found[1]
    copy = _copy.copy(cmd)
    for attr in ("help", "short_help", "epilog"):
        text = getattr(cmd, attr)
        if text:
            setattr(copy, attr, _tr(text))
    copy.params = []
    for param in cmd.params:
        p = _copy.copy(param)
        text = getattr(param, "help", None)  # an Option's help (an Argument has none)
        if text:
            p.help = _tr(text)
        copy.params.append(p)
    original_help_option = cmd.get_help_option

    def get_help_option(ctx: click.Context) -> click.Option | None:
        option = original_help_option(ctx)  # click's own, made once per command
        if option is None or not option.help:
            return option
        shown = _copy.copy(option)
        shown.help = _tr(option.help)
        return shown

    copy.get_help_option = get_help_option  # type: ignore[method-assign]  # this copy's --help, translated
    if isinstance(cmd, click.Group) and not isinstance(cmd, CristalGroup):
        copy.commands = {name: localized(sub, lang) for name, sub in cmd.commands.items()}  # type: ignore[attr-defined]
    _LOCALIZED[key] = (cmd, copy)
    return copy


_LOCALIZED: dict[tuple[int, str], tuple[click.Command, click.Command]] = {}


def _tr(text: str) -> str:
    """A help text in the current language; the msgid is the text as click shows it (``cleandoc``)."""
    clean = inspect.cleandoc(text)
    translated = i18n.translate_any(clean)
    return text if translated == clean else translated


def _scan_lang(args: list[str]) -> str | None:
    """The value of the root ``--lang`` among ``args`` (before the command's name), or None."""
    for i, arg in enumerate(args):
        if arg == "--lang" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--lang="):
            return arg[len("--lang="):]
        if not arg.startswith("-") and (i == 0 or args[i - 1] not in ("--db", "--actor", "--lang")):
            break
    return None


class CristalGroup(click.Group):
    """Core commands, plus the commands of the campaign's ruleset; CristalError -> one sentence."""

    def main(self, args: Any = None, *pos: Any, **kw: Any) -> Any:
        # the language is set once per invocation, before any command module is imported, and reset after
        # (an in-process caller, the web table or a test, runs the next invocation in its own language)
        # (an invocation inside another, the web table's commands under 'cristal --lang fr serve', keeps the
        # language already chosen unless it names its own)
        argv = list(sys.argv[1:] if args is None else args)
        explicit = _scan_lang(argv)
        token = i18n.set_language(i18n.resolve(explicit) if explicit else i18n.chosen() or i18n.resolve())
        try:
            return super().main(argv, *pos, **kw)
        finally:
            i18n.reset_language(token)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        click.Group.format_help(localized(self), ctx, formatter)

    def _ruleset_for(self, ctx: click.Context) -> list[str]:
        shared = (ctx.find_root().obj or {}).get("shared_campaign")  # a face holding the campaign open knows it
        if shared is not None and getattr(shared, "ruleset", None):
            return [shared.ruleset]
        db = ctx.params.get("db") or ctx.meta.get("cristal.db") or os.environ.get("CRISTAL_DB", "campaign.db")
        found = campaign_ruleset(db)
        return [found] if found else ruleset_names()

    def list_commands(self, ctx: click.Context) -> list[str]:
        names = set(CORE)
        for rs in self._ruleset_for(ctx):
            names.update(_listed(rs) or ruleset_commands(rs))
        return sorted(names)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The ``Commands:`` section of ``--help``, from the static listing (:mod:`.listing`), so that
        the listing imports no command module; a ruleset the listing does not hold (a plug-in) is
        listed from its commands. Each short help is cut by click itself, as for a loaded command."""
        from . import listing

        lang = i18n.current()
        shown = dict(listing.LISTING["core"][lang])
        for rs in self._ruleset_for(ctx):
            listed = _listed(rs, lang)
            if listed is None:  # a plug-in ruleset: its commands, imported (its catalogs translate them)
                i18n.load_domain(ruleset_get(rs).text_domain)
                listed = {name: localized(cmd).help or "" for name, cmd in ruleset_commands(rs).items()
                          if not cmd.hidden}
            for name, text in listed.items():
                shown.setdefault(name, text)  # as get_command: the core's first, then the first ruleset's
        if not shown:
            return
        limit = formatter.width - 6 - max(map(len, shown))
        rows = [(name, click.Command(name, help=text).get_short_help_str(limit)) for name, text in sorted(shown.items())]
        with formatter.section(i18n.CLICK.gettext("Commands")):
            formatter.write_dl(rows)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        with imports_paused():  # the command's module, its ruleset's: cristal_events.imports_paused
            cmd = self._command(ctx, cmd_name)
        if cmd is not None and ctx.resilient_parsing:  # a shell's Tab (or a lenient parse): names complete
            from .completion import attach

            attach(cmd, ("cristal",))
        return cmd

    def _command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in CORE:
            return localized(module_commands(CORE[cmd_name])[cmd_name])
        for rs in self._ruleset_for(ctx):
            cmd = ruleset_command(rs, cmd_name)
            if cmd is not None:
                i18n.load_domain(ruleset_get(rs).text_domain)  # its catalogs translate its help
                return localized(cmd)
        return None

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # ``--help`` is eager: it prints before ``--db`` reaches ctx.params, so the listing reads it here
        for i, arg in enumerate(args):
            if arg == "--db" and i + 1 < len(args):
                ctx.meta["cristal.db"] = args[i + 1]
            elif arg.startswith("--db="):
                ctx.meta["cristal.db"] = arg[len("--db="):]
            elif not arg.startswith("-") and (i == 0 or args[i - 1] not in ("--db", "--actor")):
                break  # the command's own arguments start here
        try:
            return super().parse_args(ctx, args)
        except click.ClickException as exc:  # "No such option: ..." quotes what was typed
            exc.message = visible(exc.message)  # type: ignore[misc]  # click declares it Final; the text is rewritten
            raise

    def invoke(self, ctx: click.Context) -> Any:
        try:
            out = super().invoke(ctx)
            _sealed_notice(ctx)
            return out
        except CristalError as exc:
            raise Refused(visible(exc)) from None
        except sqlite3.Error as exc:  # anything the store did not translate (e.g. a page read mid-command)
            from ..store import translate_sqlite_error

            db = ctx.params.get("db") or os.environ.get("CRISTAL_DB", "campaign.db")
            raise Refused(visible(translate_sqlite_error(exc, db))) from None
        except click.ClickException as exc:  # click's usage errors quote what was typed
            exc.message = visible(exc.message)  # type: ignore[misc]  # click declares it Final; the text is rewritten
            raise
        except (click.exceptions.Exit, click.exceptions.Abort, BrokenPipeError):
            raise
        except Exception as exc:  # a bug: still one sentence; CRISTAL_DEBUG=1 shows the traceback
            if os.environ.get("CRISTAL_DEBUG"):
                raise
            raise Refused(visible(_(
                "Internal error ({kind}: {error}); the log itself is transactional, "
                "check it with 'cristal verify' and please report this."
            ).format(kind=type(exc).__name__, error=exc))) from None


def _sealed_notice(ctx: click.Context) -> None:
    """Every command's output ends, on stderr, with how many secret rolls are still sealed (the web
    table passes it on as a warning): docs/verifiable-dice.md, "Secret rolls"."""
    from ..store import Store
    from .common import echo

    obj = ctx.obj if isinstance(ctx.obj, dict) else {}
    db = obj.get("db")
    shared = obj.get("shared_campaign")  # a face holding the campaign open (cli/inprocess.py): read there
    sealed = shared.sealed() if shared is not None else ctx.meta.get("cristal.sealed")  # common.SEALED_KEY
    if sealed is None:
        sealed = Store.sealed_of(db) if db else []
    if len(sealed) == 1:
        echo(_("Warning: 1 secret roll is still sealed (position {position}); 'session end' or "
               "'cristal reveal POSITION' reveals it.").format(position=sealed[0]), err=True)
    elif sealed:
        echo(_("Warning: {n} secret rolls are still sealed (positions {where}); 'session end' or "
               "'cristal reveal POSITION' reveals them.").format(n=len(sealed), where=", ".join(map(str, sealed))),
             err=True)


@click.group(cls=CristalGroup)
@click.option("--db", envvar="CRISTAL_DB", default="campaign.db", show_default=True, metavar="PATH",
              help="The campaign: an SQLite file, or a postgresql://...?campaign=NAME URL (env CRISTAL_DB).")
@click.option("--actor", envvar="CRISTAL_ACTOR", default="GM", show_default=True,
              help="Who records the events: GM or a player's name (env CRISTAL_ACTOR).")
@click.option("--lang", type=click.Choice(i18n.LANGUAGES), default=None, metavar="fr|en",
              help="The language of messages, help and exports: fr or en (else CRISTAL_LANG, else the locale: "
                   "a French locale gets French, any other English).")
@click.version_option(__version__, prog_name="cristal")
@click.pass_context
def cli(ctx: click.Context, db: str, actor: str, lang: str | None) -> None:
    """cristal: the append-only campaign log for Les Lois du Cristal and Illergan.

    Every action is an immutable event in one SQLite file per campaign; sheets, the XP
    ledger, combats and exports are derived from that log.

    Example: cristal --db taverne.db log --session 1
    """
    ctx.ensure_object(dict)
    ctx.obj["db"] = db
    ctx.obj["actor"] = actor
    from ..service import Campaign

    Campaign.on_warning = _warn  # e.g. a snapshot that does not match the log, ignored


def _warn(message: str) -> None:
    from .common import echo

    message = message if message.endswith(".") else f"{message}."
    echo(_("Warning: {message}").format(message=message), err=True)


def main(argv: list[str] | None = None) -> None:
    """Console entry point (``cristal``). Called without ``argv`` (the program itself, reading
    ``sys.argv``), the process ends as soon as the command has (:func:`_end_process`)."""
    try:
        cli.main(args=argv, prog_name="cristal")
    except BrokenPipeError:  # the reader of a pipe went away (cristal log | head): stop quietly
        _quiet_stdout()
        sys.exit(1)
    except KeyboardInterrupt:
        click.echo(_("Error: interrupted; nothing more was written."), err=True)
        sys.exit(130)
    except SystemExit as exc:  # click's standalone mode always ends so, with the command's exit status
        if argv is None:
            _end_process(exc.code)
        raise


def _quiet_stdout() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _end_process(code: object) -> None:
    """End the ``cristal`` process with ``code`` now: the exit handlers run (``atexit``) and the
    standard streams are flushed, then ``os._exit``, without the interpreter's teardown, which frees
    every object and module one by one (for a one-shot command about a fifth of its time, more than
    the command's own work: benchmarks/README.md, "Eighth session: the one-shot CLI write"). Every
    file and connection the command opened is closed already (click closed its contexts; the
    campaign's close checkpointed the WAL). Returns (the caller exits as usual) when a thread other
    than this one runs (a normal exit waits for it), when a profiler or a tracer (coverage) is
    active (it writes its report at the teardown), or for an exit code that is not a number."""
    import threading  # imported already (by sqlite3's dbapi2 and click): no start-up cost

    exit_funcs = getattr(atexit, "_run_exitfuncs", None)  # what the teardown runs first (CPython)
    if (exit_funcs is None or threading.active_count() > 1 or sys.getprofile() is not None
            or sys.gettrace() is not None or not (code is None or isinstance(code, int))):
        return
    exit_funcs()
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:  # as above: the reader went away
        _quiet_stdout()
        code = 1
    except (OSError, ValueError):  # a closed stream
        code = code or 120  # what the interpreter's own last flush reports
    try:
        if sys.stderr is not None:
            sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(code or 0)
