"""Running the ``cristal`` click commands in-process for the web table, and who may run which.

:func:`run` takes the words of a command line (without ``cristal`` and ``--db``), adds ``--db``,
``--actor`` (the token's holder) and ``--json``, and returns what the terminal would print; a refusal
is the terminal's own sentence. :func:`authorize` decides from the parsed click command: the game
master may run everything but what touches the server's files, its tokens or its process; a player
only the commands of :data:`PLAYER_COMMANDS`, and only for the characters granted to them.
"""

from __future__ import annotations

import sqlite3
import threading
import warnings
from typing import Any

import click
import msgspec

from ..cli.inprocess import Kept, captured, invoke
from ..display import visible
from ..errors import CristalError
from ..i18n import _

#: what a player may run: the command path -> the parameters that name a character they act for (the
#: names of both rulesets: Cristal's ``combat attack`` says ``fighter``, Illergan's ``attacker``; each
#: of these the command has must name one of the player's characters)
PLAYER_COMMANDS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("xp", "buy"): ("character_id",),
    ("combat", "attack"): ("fighter", "attacker"),
    ("combat", "cast"): ("fighter",),
    ("combat", "act"): ("fighter", "character_id"),
    ("combat", "pass"): ("fighter",),
    ("rest",): ("character_ids",),
    # what the rules leave to the game master: a request under the approval settings (cli/requests.py)
    ("heal",): ("character_id",),
    ("recover",): ("character_id",),
    ("correct",): (),
    ("sheet",): ("character_id",),
    # Illergan: a spell, a skill check, the xp purchases, a defence and a destiny point of one's hero
    ("cast",): ("caster",),
    ("check", "skill"): ("character_id",),
    ("xp", "skill"): ("character_id",),
    ("xp", "pp"): ("character_id",),
    ("xp", "magic"): ("character_id",),
    ("xp", "characteristic"): ("character_id",),
    ("xp", "faith"): ("character_id",),
    ("combat", "defend"): ("character_id",),
    ("combat", "destiny"): ("character_id",),
    # what the whole table sees: the party at a glance, the fights, the log
    ("characters",): (),
    ("combat", "show"): (),
    ("combat", "log"): (),
    ("log",): (),
}
#: options of a player's commands that only the game master may give: ``xp buy --cost`` and Illergan's
#: ``--charge`` (the GM's price), the GM's malus of a check, and the target's side of an Illergan attack
#: (its defence, its defender, whether it succeeded)
GM_OPTIONS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("xp", "buy"): ("cost",),
    **{("xp", kind): ("charge",) for kind in ("skill", "pp", "magic", "characteristic", "faith")},
    ("check", "skill"): ("malus",),
    ("combat", "attack"): ("defence", "defender", "defended"),
}
#: commands the web never runs, even for the game master: files, scripts and tokens stay in the terminal
WEB_DENIED = {("access",), ("serve",), ("init",), ("import",), ("demo",), ("script",), ("rebuild",),
              ("content", "load"), ("replay",)}
MAX_WORDS = 64
MAX_WORD = 4000

_lock = threading.Lock()  # click writes to the process's stdout: one command at a time
_open: dict[str, Kept] = {}  # db -> the campaign kept open across the commands (shared with the console)


def _shared(db: str) -> Kept:
    """What ``open_campaign`` of the commands uses in the server (``ctx.obj["shared_campaign"]``): one
    Campaign per file kept open (:class:`~cristal_events.cli.inprocess.Kept`). Called under _lock."""
    kept = _open.get(db)
    if kept is None:
        kept = _open[db] = Kept(db)
    return kept


def close_shared(db: str) -> None:
    """Close the campaign kept open for ``db`` (the server stops)."""
    with _lock:
        kept = _open.pop(db, None)
        if kept is not None:
            kept.close()


def holder_of(db: str, token_hash: str) -> dict[str, Any] | None:
    """The live holder of the token whose SHA-256 is ``token_hash``, read on the campaign kept open
    (no connection opened per request, as the console's commands open none); None for an unknown or
    revoked token, or a campaign that cannot be opened. A revoke by any writer is seen at once: the
    kept connection reads the file's last commit."""
    from ..errors import CristalError as _Error

    with _lock:
        try:
            return _shared(db)(False).store.access_by_hash(token_hash)
        except (_Error, OSError, sqlite3.Error):
            return None


class Refused(Exception):
    """A request the web table refuses: ``status`` (400, 403 ...) and one sentence."""

    def __init__(self, status: int, sentence: str):
        super().__init__(sentence)
        self.status = status
        self.sentence = sentence


class Parsed(msgspec.Struct):
    path: tuple[str, ...]
    command: Any
    params: dict[str, Any]
    depth: int
    words: list[str]


def check_words(argv: Any) -> list[str]:
    if not isinstance(argv, list) or not argv or not all(isinstance(w, str) for w in argv):
        raise Refused(400, _('The body must be {"argv": ["word", ...]}: the words of a cristal command.'))
    if len(argv) > MAX_WORDS or any(len(w) > MAX_WORD for w in argv):
        raise Refused(400, _("A command has at most {MAX_WORDS} words of at most {MAX_WORD} characters.").format(MAX_WORDS=MAX_WORDS, MAX_WORD=MAX_WORD))
    if argv[0].startswith("-"):
        raise Refused(403, _("The web table sets cristal's own options (--db, --actor) itself; start with a "
                             "command."))
    return argv


def parse(db: str, argv: list[str], kept: Kept | None = None) -> Parsed:
    """The click command ``argv`` names and its parameters (parsed leniently: errors are the run's).
    ``kept``: the campaign kept open, whose ruleset names the ruleset's commands (without it the click
    group reads the file's header again, a connection opened per request)."""
    from ..cli import cli

    ctx = cli.make_context("cristal", ["--db", db, *argv], resilient_parsing=True,
                           obj=None if kept is None else {"shared_campaign": kept})
    cmd: Any = cli
    args = list(argv)
    path: list[str] = []
    with ctx:
        while isinstance(cmd, click.Group):
            if not args:
                raise Refused(400, f"'{visible(' '.join(path))}' needs a subcommand.")
            name, sub, args = cmd.resolve_command(ctx, args)
            if sub is None:
                raise Refused(400, _("No such command '{visible}'.").format(visible=visible(argv[len(path)])))
            path.append(sub.name or name or "")
            if tuple(path) in WEB_DENIED:
                raise Refused(403, _("'{items}' runs only in the terminal, never from the web table.").format(items=' '.join(path)))
            sub_ctx = sub.make_context(sub.name, list(args), parent=ctx, resilient_parsing=True)
            ctx, cmd = sub_ctx, sub
            if isinstance(sub, click.Group):
                with warnings.catch_warnings():  # click 8.2 deprecates protected_args (9.0 keeps all in args)
                    warnings.simplefilter("ignore", DeprecationWarning)
                    args = [*getattr(sub_ctx, "protected_args", []), *sub_ctx.args]
        params = dict(ctx.params)
    return Parsed(path=tuple(path), command=cmd, params=params, depth=len(path), words=list(argv[len(path):]))


def _given(parsed: Parsed, p: click.Parameter) -> bool:
    """Whether the option ``p`` is among the words (a value click could not convert still counts)."""
    return any(w == o or w.startswith(o + "=") or (len(o) == 2 and w.startswith(o) and not w.startswith("--"))
               for w in parsed.words for o in [*p.opts, *p.secondary_opts])


def _file_params(parsed: Parsed) -> list[str]:
    """The parameters of ``parsed`` that name a file of the server and were given."""
    return [p.name for p in parsed.command.params if isinstance(p.type, (click.Path, click.File))
            and (isinstance(p, click.Argument) or _given(parsed, p))]


def authorize(holder: dict[str, Any], parsed: Parsed) -> None:
    """Raise :class:`Refused` (403) unless ``holder`` may run ``parsed``."""
    words = " ".join(parsed.path)
    for n in range(1, len(parsed.path) + 1):
        if parsed.path[:n] in WEB_DENIED:
            raise Refused(403, _("'{words}' runs only in the terminal, never from the web table.").format(words=words))
    if _file_params(parsed):
        raise Refused(403, _("'{words}' with a file of the server runs only in the terminal.").format(words=words))
    if holder["gm"]:
        return
    secret = next((p for p in parsed.command.params if p.name == "secret"), None)
    if secret is not None and _given(parsed, secret):
        raise Refused(403, "--secret is the game master's: a player's rolls are seen by the whole table.")
    if parsed.path not in PLAYER_COMMANDS:
        raise Refused(403, _("A player may not run '{words}'; ask the game master.").format(words=words))
    mine = set(holder["characters"])
    options = {p.name: p for p in parsed.command.params}
    for name in GM_OPTIONS.get(parsed.path, ()):
        if name in options and _given(parsed, options[name]):
            raise Refused(403, _("{opts} of '{words}' is the game master's to give.").format(opts=options[name].opts[0], words=words))
    if parsed.params.get("all_"):
        raise Refused(403, _("A player acts only for their own characters ({items}), not --all.").format(items=', '.join(sorted(mine))))
    names = [n for n in PLAYER_COMMANDS[parsed.path] if n in options]
    if PLAYER_COMMANDS[parsed.path] and not names:
        raise Refused(403, _("A player may not run '{words}'; ask the game master.").format(words=words))
    for name in names:
        value = parsed.params.get(name)
        named = list(value) if isinstance(value, (tuple, list)) else [value]
        if not named or any(v is None for v in named):
            raise Refused(403, _("'{words}' must name one of your characters ({items}).").format(words=words, items=', '.join(sorted(mine))))
        for v in named:
            if v not in mine:
                raise Refused(403, _("{holder} may not act for '{visible}'; only for {items}.").format(holder=holder['name'], visible=visible(str(v)), items=', '.join(sorted(mine))))


class Result(msgspec.Struct):
    body: str          #: JSON text: what --json printed (a JSON Lines output as one array)
    warnings: list[str]
    exit_code: int
    status: int = 200  #: the HTTP status: 202 for a request recorded for the game master


def _as_request(db: str, holder: dict[str, Any], parsed: Parsed, argv: list[str]) -> Result | None:
    """A player's action the rules leave to the game master (:data:`~cristal_events.cli.requests.APPROVAL_COMMANDS`):
    under its setting ``gm``, a ``request.made`` event and nothing else (HTTP 202); under ``free``,
    None (the command runs), a correction then only of an entry the player recorded. Called under _lock."""
    from ..cli.requests import APPROVAL_COMMANDS, KIND_SETTINGS
    from ..service import MakeRequest, core_setting

    found = APPROVAL_COMMANDS.get(parsed.path)
    if found is None or holder["gm"]:
        return None
    kind, param = found
    camp = _shared(db)(True)
    if core_setting(camp.state().core.settings, KIND_SETTINGS[kind]) == "free":
        if kind == "correction":
            rec = camp.store.get(parsed.params.get("position") or 0)
            if rec is None or rec.actor != holder["name"]:
                raise Refused(403, _("A player corrects only an entry they recorded themselves; ask the game "
                                     "master."))
        return None
    character = str(parsed.params.get(param) or "") if param else ""
    words = [w for w in argv if w != "--json"]
    recs = camp.execute(MakeRequest(holder=holder["name"], words=words, kind=kind, character=character),
                        actor=holder["name"])
    body = {"request": recs[0].position, "status": "pending", "kind": kind, "holder": holder["name"],
            "character": character, "words": words, "summary": camp.summarize(recs[0])}
    return Result(body=msgspec.json.encode(body).decode(), warnings=[], exit_code=0, status=202)


def run(db: str, holder: dict[str, Any], argv: list[str], *, text: bool = False) -> Result:
    """Authorize and run ``argv`` as ``holder``; a refusal raises :class:`Refused`. The answer is what
    ``--json`` prints (added when the command has it), or with ``text`` the terminal's text output
    as ``{"output": TEXT}`` (an export)."""

    argv = check_words(argv)
    with _lock:
        kept = _shared(db)
    parsed = parse(db, argv, kept)
    authorize(holder, parsed)
    words = list(argv)
    json_param = not text and any(p.name == "as_json" for p in parsed.command.params)
    if json_param and "--json" not in words:
        words.insert(parsed.depth, "--json")
    code = 0
    # the command's own output only, whatever other threads print meanwhile (cli.inprocess.captured)
    with _lock, captured() as (out, err):
        try:
            asked = _as_request(db, holder, parsed, argv)
        except CristalError as exc:
            raise Refused(400, visible(str(exc))) from None
        if asked is not None:
            return asked
        try:  # the console's own runner (cristal_events.cli.inprocess): one way to run a command in-process
            code = invoke(_shared(db), words, actor=holder["name"])
        except click.ClickException as exc:
            raise Refused(400, exc.format_message()) from None
        except click.exceptions.Abort:
            raise Refused(400, _("The command was interrupted; nothing more was written.")) from None
        printed = out.getvalue()
        if not holder["gm"] and parsed.path in JSON_LINES and json_param:
            printed = _players_lines(printed, set(_shared(db)(False).state().core.sealed))
    prefix = _("Warning: {message}").format(message="")  # "Warning: ", "Attention : " in French
    warnings = [line.removeprefix(prefix) for line in err.getvalue().splitlines() if line.strip()]
    return Result(body=_as_json(printed, json_param, parsed.path in JSON_LINES), warnings=warnings, exit_code=code)


def _players_lines(printed: str, sealed: set[int]) -> str:
    """The log as a player reads it: a private GM note (``note --private``) keeps its place but not its
    text or topic, and a secret roll still sealed shows only that it is there (its count), not its
    purpose, its commitment or its dice. Each line is one event of ``log --json``."""
    out = []
    for line in printed.splitlines():
        if not line.strip():
            continue
        rec = msgspec.json.decode(line)
        kind, payload = rec.get("type"), rec.get("payload") or {}
        if kind == "note.recorded" and payload.get("private"):
            rec["payload"] = {"type": kind, "private": True}
            rec["summary"] = _("A private note of the game master (not shown to players)")
        elif kind == "roll.sealed" and rec.get("position") in sealed:
            rec["payload"] = {"type": kind}
            rec["summary"] = _("A secret roll of the game master, still sealed")
        else:
            out.append(line)
            continue
        out.append(msgspec.json.encode(rec).decode())
    return "\n".join(out)


#: commands whose --json prints JSON Lines: the API answers them as one array
JSON_LINES = {("log",), ("combat", "log")}


def _as_json(text: str, json_param: bool, json_lines: bool) -> str:
    if not json_param:
        return msgspec.json.encode({"output": text}).decode()
    stripped = text.strip()
    if json_lines or not stripped:
        return "[" + ",".join(stripped.splitlines()) + "]"
    try:
        msgspec.json.decode(stripped)
        return stripped
    except msgspec.DecodeError:
        return "[" + ",".join(stripped.splitlines()) + "]"
