"""Campaign scripts: a TOML file a person writes, whose steps are ``cristal`` commands.

A script drives the click CLI (each step runs as if typed), so it lives in the CLI layer
(``cristal_events.cli.script``): nothing below the CLI imports it (issue 15, item 4).

Format::

    [campaign]                    # the header: what ``cristal init`` needs
    name = "La Compagnie du Cristal"
    ruleset = "cristal"           # optional (default cristal)
    rounding = "round"            # optional
    seed = 7                      # optional: the engine's dice outside sessions
    settings = { chain_attacks = 2 }   # optional ruleset settings (--set KEY=VALUE)

    [[step]]
    run = "xp award"              # the command, as typed after ``cristal``
    args = ["thor", "600"]        # positional arguments
    reason = "Victoire"           # every other key is an option: reason -> --reason
    label = "prime"               # optional: later steps may write "@prime" for its first position
    actor = "Alice"               # optional: who records it (--actor)
    dice = [13, 4]                # optional: faces rolled at the table (--dice 13,4)

A ``true`` option is a flag, a list repeats the option. A script is checked whole before anything is
written: a malformed one is refused with its line and the reason; a step the rules refuse stops the
run with its line, and the half-built campaign is removed.

Scripts are shared between game masters, so they are treated as untrusted: a script may only change
the campaign it builds. Its steps may use only the commands and options of :data:`SCRIPT_STEPS` (an
allow-list: a command or an option added to the CLI later is refused until it is listed there), none
of which reads or writes another file: no export, import, init, demo, script, verify --file, no
content pack read from a path (the Illergan ``content load`` takes ``example = true``, the packaged
pack). ``script check`` and ``script run`` refuse any other step with its number, before anything runs.
"""

from __future__ import annotations

import io
import re
import tomllib
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import msgspec

from ..errors import ScriptError
from ..i18n import _
from ..store import Store
from .common import echo, emit_json, json_option

HEADER_KEYS = {"name", "ruleset", "rounding", "seed", "settings", "description"}
RESERVED = {"run", "args", "label", "actor", "dice"}
_STEP_RE = re.compile(r"^\s*\[\[\s*step\s*\]\]")
_TOML_LINE = re.compile(r"\(at line (\d+), column \d+\)")
#: the largest script read (a campaign of several hundred steps is a few hundred kB)
MAX_SCRIPT_BYTES = 4 * 1024 * 1024

_ANYWHERE = ("json",)  # an option every command has: print JSON
_P = frozenset

#: What a campaign script may run: command -> (the options it may give, whether it takes positional
#: arguments). Nothing here reads or writes a file other than the campaign the script builds; the
#: allowed positional arguments are ids, names, numbers and texts. ``json`` is allowed everywhere.
CORE_STEPS: dict[str, tuple[frozenset[str], bool]] = {
    "note": (_P({"topic"}), True),
    "session start": (_P({"title", "date"}), False),
    "session end": (_P(), False),
    "correct": (_P({"reason", "set"}), True),
    # read-only views of the campaign being built
    "log": (_P({"stream", "type", "session", "after"}), False),
    "replay": (_P({"session", "from", "until", "character", "step"}), False),
    "audit xp": (_P(), True),
}

_CRISTAL_COMBAT = {
    "combat ability": {"duration", "target"},
    "combat act": {"duration", "action", "times", "aid", "move", "pace", "movement", "dice"},
    "combat align": {"heal", "harm"},
    "combat attack": {"weapon", "projectile", "distance", "chain", "back", "dice"},
    "combat cast": {"effect", "target", "penalty", "lower_dm", "time", "with_action", "dice"},
    "combat end": set(),
    "combat initiative": {"dice"},
    "combat inspect": {"penalty", "dice"},
    "combat join": {"it", "stat"},
    "combat lock": {"penalty", "dice"},
    "combat log": set(),
    "combat next": {"dice"},
    "combat pass": set(),
    "combat potion": {"effect", "trigger", "target", "duration", "dice"},
    "combat release": {"dice"},
    "combat reroll": {"gm", "dice"},
    "combat show": set(),
    "combat start": {"with", "it", "stat"},
    "combat store": {"effect", "capacity", "penalty", "time", "dice"},
    "combat unleash": {"target", "lower_dm", "penalty", "dice"},
    "combat unlock": {"duration"},
}
_CRISTAL_CHARACTERS = {
    "alignment": {"reason"},
    "character create": {"race", "name", "sex", "set", "roll", "alignment", "luck", "gold", "player", "dice"},
    "characters": set(),
    "damage": {"reason"},
    "gold": {"reason"},
    "heal": {"source", "by", "reason"},
    "item add": {"qty", "from_pack", "category", "att", "dmg", "mag", "dp", "dm", "mod", "weight", "it", "special"},
    "item drop": {"qty", "reason"},
    "item equip": set(),
    "item unequip": set(),
    "rest": {"all", "days"},
    "sheet": {"at", "session"},
    "state": {"until", "end", "reason"},
    "xp award": {"all", "reason"},
    "xp buy": {"stat", "cost"},
}
_ILLERGAN = {
    "carry": {"reason"},
    "cast": {"level", "fight", "modifier", "whisper", "target", "damage", "action", "dice", "blocked", "secondary",
             "on_primary", "primary_level", "sense", "distance", "stealth", "spotted", "accept", "gagged", "paralysed",
             "without_canalisateur", "not_relevant", "duration", "minutes", "concentrate"},
    "spell learn": {"teacher", "price"},
    "spell break": {"remaining", "target"},
    "spell cancel": {"target"},
    "character create": {"name", "race", "class", "heritage", "stat", "pv", "pm", "rn", "cult", "god", "magic",
                         "spell", "skill", "language", "trait", "alc_min", "hand", "gift", "kit", "starls", "fp",
                         "rank", "player", "dice"},
    "character creature": {"name", "stat", "pv", "rn", "pm", "fp", "rank", "weapon", "armour", "body",
                           "natural_weapon", "attacks", "family", "spell"},
    "characters": set(),
    "check lockpick": {"lock", "malus", "name", "dice"},
    "check search": {"hidden", "acuity", "dice"},
    "check skill": {"malus", "with_characteristic", "dice", "bonus"},
    "check skinning": {"malus", "part", "dice"},
    "combat act": {"what", "by"},
    "combat attack": {"weapon", "unarmed", "hands", "off_hand", "distance", "power_dice", "flat", "zone", "defence",
                      "defender", "defended", "action", "dice", "thrown", "defence_pct", "also",
                      "letalite"},
    "combat defend": {"for_ally", "against_magic"},
    "combat destiny": {"narrative"},
    "combat end": set(),
    "combat fly": {"land", "means", "passenger", "hover", "held_by", "dice"},
    "combat initiative": {"malus", "dice", "unspotted"},
    "combat move": {"metres", "vertical", "sprint", "u_turns"},
    "combat poison": {"pv", "turns"},
    "combat start": set(),
    "condition": {"off", "reason"},
    "drink": {"alc", "shift", "dice"},
    "equip": {"piece"},
    "evening": set(),
    "use": {"target", "fight"},
    "recover": {"pv", "pm", "source", "reason"},
    "faith adjust": {"pfb", "pf", "reason"},
    "faith harmonise": {"at", "sunrise", "sunset"},
    "faith change": {"god", "add", "reason"},
    "faith learn": {"book", "teacher_level"},
    "faith invoke": {"level", "target", "distance", "fight", "defence", "pfb"},
    "fall": {"fight"},
    "money buy": {"piece", "price"},
    "money change": {"reason"},
    "money convert": set(),
    "money sell": {"price", "jewel", "piece"},
    "sheet": {"at"},
    "strike": {"ps", "sr", "weapon", "unarmed", "fight", "dice"},
    "throw": {"distance", "range", "fight", "dice"},
    "wait": {"reason"},
    "xp award": {"reason"},
    "xp characteristic": {"heritage", "charge"},
    "xp faith": {"heritage", "charge", "cult"},
    "xp magic": {"teacher_level", "heritage", "charge"},
    "xp pp": {"heritage", "charge"},
    "xp skill": {"heritage", "charge", "unlock"},
}

#: ruleset -> command -> (allowed options, takes positional arguments); see :data:`CORE_STEPS`.
SCRIPT_STEPS: dict[str, dict[str, tuple[frozenset[str], bool]]] = {
    "cristal": {**CORE_STEPS, **{k: (_P(v), True) for k, v in {**_CRISTAL_COMBAT, **_CRISTAL_CHARACTERS}.items()}},
    "illergan": {**CORE_STEPS, **{k: (_P(v), True) for k, v in _ILLERGAN.items()},
                 # the packaged example pack only: a script reads no file
                 "content load": (_P({"example", "name"}), False)},
}


@dataclass
class Step:
    line: int
    run: str
    number: int = 0
    args: list[str] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    label: str = ""
    actor: str = ""
    dice: list[int] | None = None
    key_lines: dict[str, int] = field(default_factory=dict)


@dataclass
class Script:
    path: str
    header: dict[str, Any]
    steps: list[Step]

    @property
    def ruleset(self) -> str:
        return str(self.header.get("ruleset", "cristal"))


def _fail(path: str, line: int, reason: str) -> ScriptError:
    return ScriptError(_("{path}, line {line}: {reason}.").format(path=path, line=line, reason=reason))


def _key_lines(lines: list[str], start: int, end: int) -> dict[str, int]:
    out: dict[str, int] = {}
    for i in range(start, end):
        m = re.match(r"^\s*([A-Za-z0-9_-]+)\s*=", lines[i])
        if m and m.group(1) not in out:
            out[m.group(1)] = i + 1
    return out


def _scalar(v: Any) -> bool:
    return isinstance(v, (str, int, float)) and not isinstance(v, bool)


def parse(text: str, path: str = "<script>") -> Script:
    """Parse and check the shape of a script (not yet its commands; see :func:`check`)."""
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise _fail(path, 1, _("the script is nested too deeply to be a campaign script")) from None
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = _TOML_LINE.search(msg)
        line = int(m.group(1)) if m else 1
        raise _fail(path, line, "not valid TOML (" + _TOML_LINE.sub("", msg).strip() + ")") from None
    lines = text.splitlines()
    step_lines = [i + 1 for i, ln in enumerate(lines) if _STEP_RE.match(ln)]
    head_line = next((i + 1 for i, ln in enumerate(lines) if re.match(r"^\s*\[\s*campaign\s*\]", ln)), 1)
    for key in data:
        if key not in ("campaign", "step"):
            where = next((i + 1 for i, ln in enumerate(lines) if re.match(rf"^\s*\[*\s*{re.escape(key)}\b", ln)), 1)
            raise _fail(path, where, _("unknown section or key {key!r} (a script has [campaign] and [[step]] "
                                       "only)").format(key=key))
    header = data.get("campaign")
    if not isinstance(header, dict):
        raise _fail(path, 1, _("the script needs a [campaign] table with at least a name"))
    hkeys = _key_lines(lines, head_line, step_lines[0] - 1 if step_lines else len(lines))
    for key in header:
        if key not in HEADER_KEYS:
            raise _fail(path, hkeys.get(key, head_line), _("unknown campaign key {key!r} (known: {items})").format(key=key, items=', '.join(sorted(HEADER_KEYS))))
    if not isinstance(header.get("name"), str) or not header["name"].strip():
        raise _fail(path, hkeys.get("name", head_line), _('the campaign needs a name (name = "...")'))
    if "seed" in header and (not isinstance(header["seed"], int) or isinstance(header["seed"], bool)):
        raise _fail(path, hkeys["seed"], _("seed must be a whole number"))
    if "settings" in header and not isinstance(header["settings"], dict):
        raise _fail(path, hkeys["settings"], _("settings must be a table (settings = { key = value })"))
    raw_steps = data.get("step", [])
    if not isinstance(raw_steps, list) or not raw_steps:
        raise _fail(path, len(lines) or 1, _("the script has no [[step]]"))
    steps: list[Any] = []
    labels: set[str] = set()
    for n, raw in enumerate(raw_steps):
        line = step_lines[n] if n < len(step_lines) else 1
        end = step_lines[n + 1] - 1 if n + 1 < len(step_lines) else len(lines)
        keys = _key_lines(lines, line, end)
        if not isinstance(raw, dict):
            raise _fail(path, line, _("each [[step]] must be a table"))
        steps.append(_step(path, line, raw, keys, labels))
        steps[-1].number = n + 1
    return Script(path=path, header=header, steps=steps)


def _step(path: str, line: int, raw: dict[str, Any], keys: dict[str, int], labels: set[str]) -> Step:
    def at(key: str) -> int:
        return keys.get(key, line)

    run = raw.get("run")
    if not isinstance(run, str) or not run.split():
        raise _fail(path, line, _('the step needs run = "<command>" (e.g. run = "xp award")'))
    args = raw.get("args", [])
    if not isinstance(args, list) or not all(_scalar(a) for a in args):
        raise _fail(path, at("args"), _("args must be a list of texts or numbers"))
    dice = raw.get("dice")
    if dice is not None and (not isinstance(dice, list) or not dice
                             or not all(isinstance(d, int) and not isinstance(d, bool) for d in dice)):
        raise _fail(path, at("dice"), _("dice must be a list of whole numbers (the faces rolled at the table)"))
    for key in ("label", "actor"):
        if key in raw and (not isinstance(raw[key], str) or not raw[key].strip()):
            raise _fail(path, at(key), _("{key} must be a non-empty text").format(key=key))
    label = raw.get("label", "")
    if label in labels:
        raise _fail(path, at("label"), _("the label {label!r} is already used by an earlier step").format(label=label))
    if label:
        labels.add(label)
    options: dict[str, Any] = {}
    for key, value in raw.items():
        if key in RESERVED:
            continue
        ok = _scalar(value) or isinstance(value, bool) or (isinstance(value, list) and all(_scalar(v) for v in value))
        if not ok:
            raise _fail(path, at(key), _("option {key!r} must be a text, a number, true/false or a list of them").format(key=key))
        options[key] = value
    for value in [*args, *[v for o in options.values() for v in (o if isinstance(o, list) else [o])]]:
        if isinstance(value, str) and value.startswith("@") and value[1:] not in labels:
            raise _fail(path, line, _("{value} names no label of an earlier step").format(value=value))
    return Step(line=line, run=" ".join(run.split()), args=[str(a) for a in args], options=options,
                label=label, actor=raw.get("actor", ""), dice=dice, key_lines=keys)


def load(path: str | Path) -> Script:
    p = Path(path)
    try:
        if p.is_file() and p.stat().st_size > MAX_SCRIPT_BYTES:
            raise ScriptError(_("{p} is {st_size} bytes; a campaign script is at most {value} MB.").format(p=p, st_size=p.stat().st_size, value=MAX_SCRIPT_BYTES // (1024 * 1024)))
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScriptError(_("Cannot read the script {p}: {strerror}.").format(p=p, strerror=exc.strerror)) from None
    except UnicodeDecodeError:
        raise ScriptError(_("{p}, line 1: the script is not UTF-8 text.").format(p=p)) from None
    return parse(text, str(p))


def _resolve(ruleset: str, words: list[str]) -> click.Command | None:
    from ..cli import core_commands, ruleset_commands

    cmd: click.Command | None = core_commands().get(words[0]) or ruleset_commands(ruleset).get(words[0])
    for w in words[1:]:
        if not isinstance(cmd, click.Group):
            return None
        cmd = cmd.commands.get(w)
    return None if isinstance(cmd, click.Group) else cmd


def check(script: Script) -> None:
    """Refuse a step whose command or option the ``cristal`` CLI does not have (nothing written)."""
    from ..rulesets import names

    if script.ruleset not in names():
        raise _fail(script.path, 1, f"unknown ruleset {script.ruleset!r} (known: {', '.join(names())})")
    allowed = SCRIPT_STEPS.get(script.ruleset, {})
    for step in script.steps:
        cmd = _resolve(script.ruleset, step.run.split())
        if cmd is None:
            raise _fail(script.path, step.line, f"unknown command {step.run!r} for the {script.ruleset} rules")
        opts = {o for p in cmd.params if isinstance(p, click.Option) for o in p.opts}
        for key in step.options:
            if "--" + key.replace("_", "-") not in opts:
                raise _fail(script.path, step.key_lines.get(key, step.line),
                            _("the command {run!r} has no option --{replace}").format(run=step.run, replace=key.replace('_', '-')))
        if step.dice is not None and "--dice" not in opts:
            raise _fail(script.path, step.key_lines.get("dice", step.line),
                        _("the command {run!r} rolls no dice (it has no --dice option)").format(run=step.run))
        _check_safe(script.path, step, allowed, opts)


def _check_safe(path: str, step: Step, allowed: dict[str, tuple[frozenset[str], bool]], opts: set[str]) -> None:
    """Refuse a step outside the allow-list: it could read or write a file other than the campaign."""
    def refuse(line: int, why: str) -> ScriptError:
        return _fail(path, line, _("step {number} is refused: {why} (a campaign script may only change the "
                                   "campaign it builds; see docs/exports.md, Campaign scripts)").format(number=step.number, why=why))

    if step.run not in allowed:
        raise refuse(step.line, _("a script may not run {run!r}").format(run=step.run))
    options, takes_args = allowed[step.run]
    for key in step.options:
        name = key.replace("-", "_")
        if name not in options and name not in _ANYWHERE:
            raise refuse(step.key_lines.get(key, step.line),
                         _("a script may not give {run!r} the option --{replace}").format(run=step.run, replace=key.replace('_', '-')))
    if step.args and not takes_args:
        what = _(" (only example = true, the packaged pack)") if step.run == "content load" else ""
        raise refuse(step.key_lines.get("args", step.line),
                     _("a script may not give {run!r} arguments{what}").format(run=step.run, what=what))
    short = tuple(o for o in opts if not o.startswith("--"))
    for arg in step.args:
        if arg.startswith("--") or (short and arg.startswith(short)):
            raise refuse(step.key_lines.get("args", step.line),
                         _("the argument {arg!r} would be read as an option; give options as keys").format(arg=arg))


def step_argv(step: Step, resolve: Any) -> list[str]:
    argv = step.run.split() + [resolve(a) for a in step.args]
    for key, value in step.options.items():
        flag = "--" + key.replace("_", "-")
        for v in value if isinstance(value, list) else [value]:
            if v is True:
                argv.append(flag)
            elif v is False:
                continue
            else:
                argv += [flag, resolve(str(v))]
    if step.dice is not None:
        argv += ["--dice", ",".join(map(str, step.dice))]
    return argv


@dataclass
class Ran:
    line: int
    run: str
    positions: tuple[int, int]
    output: str


def last_position(db: Path | str) -> int:
    return Store.peek_last_position(db)


def invoke_cli(argv: list[str]) -> tuple[int, str, str]:
    from . import cli

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = cli.main(args=argv, prog_name="cristal", standalone_mode=False)
        except click.ClickException as exc:
            return 1, out.getvalue(), exc.format_message()
        except click.exceptions.Exit as exc:
            code = exc.exit_code
        except click.exceptions.Abort:
            return 1, out.getvalue(), "aborted"
    return (code if isinstance(code, int) else 0), out.getvalue(), err.getvalue().strip()


def run(script: Script, db: str | Path, *, actor: str = "GM") -> list[Ran]:
    """Build the campaign ``db`` (a new file) from ``script``; return what each step appended."""
    check(script)
    from ..store import is_postgres, open_store

    pg = is_postgres(str(db))  # a PostgreSQL campaign's URL stays text (init refuses one that exists)
    if not pg:
        db = Path(db)
        if db.exists():
            raise ScriptError(_("{db} already exists; a script builds a new campaign.").format(db=db))
    created = False
    h = script.header
    init = ["init", "--name", h["name"], "--ruleset", script.ruleset, "--rounding", str(h.get("rounding", "round"))]
    if "seed" in h:
        init += ["--seed", str(h["seed"])]
    for key, value in h.get("settings", {}).items():
        init += ["--set", f"{key}={msgspec.json.encode(value).decode()}"]
    labels: dict[str, int] = {}

    def resolve(value: str) -> str:
        return str(labels[value[1:]]) if value.startswith("@") and value[1:] in labels else value

    done: list[Ran] = []
    try:
        code, _out, err = invoke_cli(["--db", str(db), "--actor", actor, *init])
        if code:
            raise _fail(script.path, 1, _("the campaign could not be created ({removeprefix})").format(removeprefix=err.removeprefix('Error: ')))
        created = True
        for step in script.steps:
            before = last_position(db)
            argv = ["--db", str(db), "--actor", step.actor or actor, *step_argv(step, resolve)]
            code, out, err = invoke_cli(argv)
            if code:
                reason = (err or out).strip().removeprefix("Error: ").rstrip(".")
                raise _fail(script.path, step.line, f"{step.run} was refused: {reason}")
            after = last_position(db)
            if step.label:
                labels[step.label] = before + 1
            done.append(Ran(step.line, step.run, (before + 1, after), out))
    except BaseException:
        if pg:
            if created:  # the campaign this script began is removed, as a file would be
                store = open_store(str(db))
                store.drop_campaign()
                store.close()
        else:
            for suffix in ("", "-wal", "-shm"):
                Path(str(db) + suffix).unlink(missing_ok=True)
        raise
    return done


# ------------------------------------------------------------------ the commands
@click.group("script")
def script_group() -> None:
    """Campaign scripts: TOML files whose steps are cristal commands (see docs/exports.md).

    Example: cristal script run sample_campaigns/compagnie_du_cristal.toml taverne.db
    """


@script_group.command("check")
@click.argument("file", type=click.Path(dir_okay=False))
@json_option
def script_check(file: str, as_json: bool) -> None:
    """Check a campaign script without running it (exit 1 naming the line and the reason). A script may
    only change the campaign it builds: a step that would read or write another file is refused.

    Example: cristal script check ma_campagne.toml
    """
    s = load(file)
    check(s)
    if as_json:
        emit_json({"file": file, "steps": len(s.steps), "ruleset": s.ruleset, "ok": True})
    else:
        echo(_("{file}: {len} steps for the {ruleset} rules, all known commands and options a script may use "
               "(none reads or writes another file).").format(file=file, len=len(s.steps), ruleset=s.ruleset))


@script_group.command("run")
@click.argument("file", type=click.Path(dir_okay=False))
@click.argument("path", required=False)
@json_option
@click.pass_context
def script_run(ctx: click.Context, file: str, path: str | None, as_json: bool) -> None:
    """Build a new campaign (PATH, default --db) from a script; a refused step stops it, naming its line,
    and leaves no campaign behind.

    Example: cristal script run sample_campaigns/compagnie_du_cristal.toml compagnie.db
    """
    target = path or ctx.obj["db"]
    ran = run(load(file), target, actor=ctx.obj["actor"])
    if as_json:
        emit_json([{"line": r.line, "run": r.run, "positions": list(r.positions)} for r in ran])
    else:
        echo(_("Built {target} from {file}: {len} commands, positions 1 to {value}.").format(target=target, file=file, len=len(ran), value=ran[-1].positions[1] if ran else 1))


COMMANDS = [script_group]
