"""Terminal output is text, not control (issue 14, item 12).

A name, a reason, a note or a title may hold escape sequences (CSI, OSC, BEL), carriage returns,
newlines or bidi controls. The log keeps them exactly and ``--json`` prints them exactly, but no
TEXT output lets one act on the terminal: each is shown visibly (``\\x1b``, ``⏎``, ``\\u202e``), so
it cannot clear the screen, set the window title or fake an event line, even through a pipe.
Ids refuse such characters in one sentence.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import unicodedata
from pathlib import Path

import ledger_ruleset as L
import pytest
from click.testing import CliRunner
from conftest import ROOT, child_env, log_fingerprint
from hypothesis import given
from hypothesis import strategies as st

from cristal_events import init_campaign
from cristal_events.cli import cli
from cristal_events.display import id_problem, inert_json, visible

#: screen clear, window title (OSC ... BEL), CR + newline faking a log line, tab, an 8-bit CSI, a
#: right-to-left override, an isolate, DEL, NUL and a line separator
HOSTILE = ("Thor\x1b[2J\x1b]0;pwned\x07\r\n    99    s1  campaign  note.recorded  GM  faux\t\x9b31m"
           "\u202eevil\u2066\x7f\x00\u2028é")
SHOWN = visible(HOSTILE)
#: what the visible form must contain: every control written out, on the same line
FRAGMENT = "Thor\\x1b[2J\\x1b]0;pwned\\x07\\r⏎    99"
JOINERS = {"\u200c", "\u200d"}  # kept by visible(): they shape emoji and scripts, and move nothing
ALLOWED = JOINERS | {"\n"}  # in an output: the joiners, and the CLI's own newlines


def assert_inert(data: bytes, where: object = "") -> str:
    """No byte below 0x20 but the CLI's own newlines, no DEL, no 8-bit CSI; no control or format character."""
    bad = sorted({b for b in data if (b < 0x20 and b != 0x0A) or b in (0x7F, 0x9B)})
    assert not bad, (where, bad, data[:300])
    text = data.decode("utf-8")
    hidden = sorted({c for c in text if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp", "Cs") and c not in ALLOWED})
    assert not hidden, (where, hidden)
    return text


class Run:
    """``cristal --db DB ...`` in process; every call checks stdout and stderr are inert."""

    def __init__(self, db: Path, actor: str = "GM") -> None:
        self.db, self.actor, self.runner = db, actor, CliRunner()

    def __call__(self, *args: str, code: int = 0, input: str | None = None) -> tuple[str, str]:
        r = self.runner.invoke(cli, ["--db", str(self.db), "--actor", self.actor, *args], input=input,
                               catch_exceptions=False)
        out, err = assert_inert(r.stdout_bytes, args), assert_inert(r.stderr_bytes, args)
        assert r.exit_code == code, (args, r.output)
        return out, err


# --------------------------------------------------------------------------------- visible()
def test_visible_shows_each_control_by_one_documented_convention() -> None:
    assert visible("a\x1bb") == "a\\x1bb"
    assert visible("\x1b]0;pwned\x07") == "\\x1b]0;pwned\\x07"
    assert visible("l1\nl2\r\tx") == "l1⏎l2\\r\\tx"
    assert visible("\x00\x7f\x9b\x85") == "\\x00\\x7f\\x9b\\x85"
    assert visible("\u202eabc\u202c\u2066\u2069\u200e\u061c") == "\\u202eabc\\u202c\\u2066\\u2069\\u200e\\u061c"
    assert visible("\u2028\u2029\ufeff\u200b\u00ad\U000e0041") == "\\u2028\\u2029\\ufeff\\u200b\\u00ad\\U000e0041"
    assert visible("\udcff") == "\\udcff"  # a lone surrogate (argv bytes that were not UTF-8)
    # printable text, accents, emoji with their joiners and Persian's non-joiner are kept as they are
    for kept in ("Thor « le Grand » — é ê ß Ω عربى", "👩\u200d👩\u200d👧", "می\u200cخواهم", "e\u0301"):
        assert visible(kept) == kept
    assert visible(12) == "12" and visible(None) == "None"


def test_visible_covers_every_control_and_format_character_of_this_python() -> None:
    """The fast pattern against ``unicodedata``: every Cc, Cf, Zl, Zp and surrogate is rendered (but the
    two joiners), and no assigned character else."""
    for code in range(0x110000):
        ch = chr(code)
        hidden = unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs") and ch not in JOINERS
        if hidden:
            assert visible(ch) != ch and (visible(ch).isascii() or ch == "\n"), hex(code)
        else:  # (the pattern also holds the format characters of later Unicode versions: unassigned here)
            assert visible(ch) == ch or unicodedata.category(ch) == "Cn", hex(code)


@given(st.text())
def test_visible_output_is_inert_and_idempotent(text: str) -> None:
    shown = visible(text)
    assert not any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp", "Cs") and c not in JOINERS for c in shown)
    assert visible(shown) == shown
    # (a character unassigned in this Python's Unicode may be a format character of a later version, which
    # the pattern renders too, as the exhaustive test above allows: U+13439, Cf since Unicode 15)
    if not any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Cn") and c not in JOINERS for c in text):
        assert shown == text


def test_inert_json_is_the_same_json_with_nothing_a_terminal_acts_on() -> None:
    import msgspec

    text = HOSTILE + "\U000e0041\u0085\u2029"
    encoded = inert_json(msgspec.json.encode({"name": text, "n": [1, 2]}).decode())
    assert json.loads(encoded) == {"name": text, "n": [1, 2]} and encoded.isascii() is False  # é stays é
    assert "\\udb40\\udc41" in encoded and "\\u202e" in encoded and "\\u0085" in encoded
    assert_inert(encoded.encode())
    assert inert_json('{\n  "a": 1\n}') == '{\n  "a": 1\n}'  # the layout of indented JSON is kept


# ------------------------------------------------------------------------ Lois du Cristal CLI
@pytest.fixture
def cristal_db(tmp_path: Path) -> Path:
    """A Lois du Cristal campaign where every free text a user can type is hostile."""
    db = tmp_path / "c.db"
    run = Run(db, actor=HOSTILE)
    out, _ = run("init", "--name", HOSTILE, "--seed", "5")
    assert SHOWN in out
    run("session", "start", "--title", HOSTILE, "--date", HOSTILE)
    out, _ = run("character", "create", "thor", "--race", "Humain", "--name", HOSTILE, "--player", HOSTILE,
                 "--gold", "100")
    assert FRAGMENT in out
    run("character", "create", "lia", "--race", "Elfe", "--name", "Lia")
    out, _ = run("xp", "award", "thor", "lia", "600", "--reason", HOSTILE)
    assert FRAGMENT in out
    run("xp", "buy", "thor", "level", "Guerrier", "--stat", "FRC")
    run("gold", "thor", "-5", "--reason", HOSTILE)
    run("state", "thor", "FRC", "-1", "--until", HOSTILE, "--reason", HOSTILE)
    run("damage", "thor", "3", "--reason", HOSTILE)
    run("heal", "thor", "1", "--source", "care", "--reason", HOSTILE)
    run("heal", "thor", "1", "--source", HOSTILE, "--reason", HOSTILE, code=1)  # a closed choice (L1190)
    run("note", HOSTILE, "--topic", HOSTILE)
    run("combat", "start", "rixe", "--with", "thor,york", "--it", "york=2", "--stat", "york:PV=15",
        "--stat", "york:DP=10", "--stat", "york:ATT=3", "--stat", "york:race=Humain")
    run("combat", "act", "rixe", "thor", HOSTILE, "--duration", "2")
    run("session", "end")
    return db


def test_every_cristal_text_output_shows_hostile_text_visibly(cristal_db: Path) -> None:
    run = Run(cristal_db)
    for args, shows in [
        (("log",), True), (("replay",), True), (("replay", "--character", "thor"), True),
        (("sheet", "thor"), True), (("sheet", "thor", "--at", "5"), True), (("sheet", "thor", "--session", "1"), True),
        (("characters",), True), (("audit", "xp"), True), (("audit", "xp", "thor"), True),
        (("combat", "show", "rixe"), False), (("combat", "log", "rixe"), True),
        (("correct", "6", "--reason", HOSTILE, "--set", "amount=60"), True),
        (("verify",), False), (("rebuild",), False),
    ]:
        out, err = run(*args)
        assert out.strip() and not err, args
        if shows:
            assert FRAGMENT in out, (args, out)
    # the fake event line never starts a line of its own
    log, _ = run("log")
    assert not [line for line in log.splitlines() if line.lstrip().startswith("99 ")]
    assert len(log.splitlines()) == log_fingerprint(cristal_db)[0]


def test_replay_step_shows_hostile_text_visibly(cristal_db: Path) -> None:
    out, err = Run(cristal_db)("replay", "--step", input="\n" * 40)
    assert FRAGMENT in out and "[Entrée : suivant, q : quitter]" not in out  # the prompt goes to a terminal only


def test_errors_quoting_user_input_show_it_visibly(cristal_db: Path) -> None:
    run = Run(cristal_db)
    before = log_fingerprint(cristal_db)
    for args, code in [(("sheet", HOSTILE), 1), (("xp", "award", HOSTILE, "5", "--reason", "x"), 1),
                       (("combat", "show", HOSTILE), 1), (("log", "--session", HOSTILE), 2), ((HOSTILE,), 2),
                       (("sheet", "thor", "--" + HOSTILE), 2), (("--" + HOSTILE, "log"), 2),
                       # a bad number is refused by its click type (issue 15 item 7): exit 2, was 1
                       (("gold", "thor", HOSTILE, "--reason", "x"), 2)]:
        out, err = run(*args, code=code)  # inert (checked by run); the value is quoted visibly
        assert "Error:" in err and "Thor\\x1b[2J\\x1b]0;pwned\\x07\\r" in err, (args, err)
    assert log_fingerprint(cristal_db) == before


def test_json_outputs_keep_the_text_exactly_and_are_inert_too(cristal_db: Path) -> None:
    """``--json`` gives the exact text back to a decoder; DEL, C1 and format characters are ``\\u``
    escapes (as JSON encoders write C0), so even JSON on a terminal acts on nothing, and a reader
    splitting lines on U+2028 or U+0085 (Python's ``splitlines``) still sees one record a line."""
    runner = CliRunner()

    def json_of(*args: str) -> list:
        r = runner.invoke(cli, ["--db", str(cristal_db), *args, "--json"], catch_exceptions=False)
        assert r.exit_code == 0, r.output
        assert_inert(r.stdout_bytes, args)
        return [json.loads(line) for line in r.stdout.splitlines()]

    log = json_of("log")
    assert log[0]["payload"]["name"] == HOSTILE and all(rec["actor"] == HOSTILE for rec in log)
    assert json_of("sheet", "thor")[0]["name"] == HOSTILE
    replay = json_of("replay")
    assert replay[2]["payload"]["name"] == HOSTILE and HOSTILE in replay[2]["summary"]
    assert json_of("characters")[0][0]["name"] == HOSTILE
    jsonl = CliRunner().invoke(cli, ["--db", str(cristal_db), "export", "timeline", "--format", "jsonl"])
    lines = assert_inert(jsonl.stdout_bytes).splitlines()
    assert json.loads(lines[0])["payload"]["name"] == HOSTILE and len(lines) == len(log) + 1
    assert set(json.loads(lines[-1])) == {"receipt"}  # the export's receipt trailer


def test_a_pipe_gets_the_visible_form(cristal_db: Path) -> None:
    """A real process writing to a pipe (``cristal log | less``): the bytes are inert too."""
    for args in (["log"], ["replay", "--session", "1"], ["sheet", "thor"], ["audit", "xp"]):
        proc = subprocess.run([sys.executable, "-c", "from cristal_events.cli import main; main()",
                               "--db", str(cristal_db), *args], capture_output=True, env=child_env(), cwd=ROOT)
        assert proc.returncode == 0, proc.stderr
        assert FRAGMENT in assert_inert(proc.stdout, args) and assert_inert(proc.stderr, args) == ""


# ---------------------------------------------------------------------------------- exports
def _export(db: Path, fmt: str) -> str:
    r = CliRunner().invoke(cli, ["--db", str(db), "export", "timeline", "--format", fmt], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return assert_inert(r.stdout_bytes, fmt)


def test_markdown_export_shows_control_characters_and_cannot_fake_a_line(cristal_db: Path) -> None:
    text = _export(cristal_db, "md")
    assert "Thor\\\\x1b\\[2J\\\\x1b\\]0;pwned\\\\x07\\\\r⏎" in text  # visible, then Markdown-escaped
    assert not [line for line in text.splitlines() if "faux" in line and not line.startswith(("#", "-", "*", "|"))]
    assert text.count("\n## Session 1") == 1


def test_csv_export_shows_control_characters_and_keeps_one_row_per_event(cristal_db: Path) -> None:
    text = _export(cristal_db, "csv")
    events = log_fingerprint(cristal_db)[0]
    assert len(text.splitlines()) == events + 1  # a naive reader splitting lines sees one row per event
    rows = list(csv.reader(io.StringIO(text)))
    assert len(rows) == events + 1
    cells = [c for r in rows[1:] for c in r]
    assert all("\n" not in c and "\r" not in c for c in cells)
    assert "'" not in SHOWN[:1] and SHOWN in cells  # the actor column: the whole visible form
    assert all(not c.startswith(("=", "+", "-", "@")) for c in cells)  # formulas still neutralised


def test_html_export_shows_control_characters(cristal_db: Path) -> None:
    page = _export(cristal_db, "html")
    assert "Thor\\x1b[2J\\x1b]0;pwned\\x07\\r⏎" in page


# -------------------------------------------------------------------------------- Illergan CLI
THOR = ["--stat", "Fo=4", "--stat", "Dex=50", "--stat", "Vit=60", "--stat", "Vol=40", "--stat", "Mana=10",
        "--stat", "E=8", "--stat", "Cha=30", "--stat", "Sav=30", "--stat", "Dep=5", "--stat", "Agilité=40",
        "--stat", "Adresse=60"]


def test_every_illergan_text_output_shows_hostile_text_visibly(tmp_path: Path) -> None:
    run = Run(tmp_path / "i.db", actor=HOSTILE)
    run("init", "--name", HOSTILE, "--ruleset", "illergan", "--seed", "4")
    run("content", "load", "--example")
    run("session", "start", "--title", HOSTILE)
    out, _ = run("character", "create", "thor", "--name", HOSTILE, "--race", "Humain", "--class", "Guerrier",
                 "--heritage", "Enfant des rues", *THOR, "--pv", "40", "--rn", "10", "--gift", "3",
                 "--starls", "1'O 10'A", "--player", HOSTILE)
    assert FRAGMENT in out
    run("character", "creature", "chef", "--name", HOSTILE, "--stat", "Fo=3", "--stat", "Dex=45", "--stat", "Vol=10",
        "--stat", "Vit=25", "--stat", "Adresse=55", "--pv", "30", "--weapon", "Stylet")
    run("xp", "award", "thor", "150", "--reason", HOSTILE)
    run("carry", "thor", "Corde de 10 mètres", "1", "--reason", HOSTILE)
    run("drink", "thor", "Bière")
    run("combat", "start", "gue", "thor", "chef")
    run("combat", "initiative", "gue")
    run("combat", "act", "gue", "thor", "minor", "--what", HOSTILE)
    run("note", HOSTILE)
    for args, shows in [(("log",), True), (("replay",), True), (("sheet", "thor"), True), (("sheet", "chef"), True),
                        (("characters",), True), (("audit", "xp"), True), (("evening", "thor"), False)]:
        out, err = run(*args)
        assert out.strip() and not err, args
        if shows:
            assert FRAGMENT in out, (args, out)
    # a malformed amount of Starls is refused by its click type (issue 15 item 7): exit 2, was 1
    for args, code in ((("sheet", HOSTILE), 1), (("money", "convert", HOSTILE), 2),
                       (("xp", "award", HOSTILE, "5", "--reason", "x"), 1)):
        _, err = run(*args, code=code)
        assert "Thor\\x1b[2J\\x1b]0;pwned\\x07\\r" in err, (args, err)


def test_an_older_log_with_a_hostile_id_is_still_shown_visibly(tmp_path: Path) -> None:
    """The ledger test ruleset takes any id, as a log written before ids were checked may hold one."""
    db = tmp_path / "l.db"
    camp = init_campaign(db, name="Ledger", ruleset="ledger", seed=1)
    camp.execute(L.AwardXp(character=HOSTILE, amount=3, reason=HOSTILE), actor=HOSTILE)
    camp.close()
    run = Run(db)
    for args in (("log",), ("replay",), ("replay", "--character", HOSTILE)):
        out, _ = run(*args)
        assert FRAGMENT in out, args


# ------------------------------------------------------------------------------------- ids
REFUSED_IDS = {
    "escape": ("x\x1b[2J", "'x\\x1b[2J' contains \\x1b, a control or invisible formatting character"),
    "bel": ("x\x07", "'x\\x07' contains \\x07"),
    "newline": ("x\ny", "'x⏎y' contains ⏎"),
    "bidi": ("ab\u202ecd", "'ab\\u202ecd' contains \\u202e"),
    "joiner": ("a\u200db", "'a\u200db' contains \\u200d"),
    "zero-width": ("a\u200bb", "'a\\u200bb' contains \\u200b"),
    "c1": ("a\x9bb", "'a\\x9bb' contains \\x9b"),
    "leading-space": (" thor", "' thor' starts or ends with a space"),
    "trailing-nbsp": ("thor\u00a0", "'thor\u00a0' starts or ends with a space"),
    "empty": ("", "cannot be empty"),
}


@pytest.mark.parametrize("value,problem", list(REFUSED_IDS.values()), ids=list(REFUSED_IDS))
def test_a_character_id_with_a_control_character_is_refused_in_one_sentence(tmp_path: Path, value: str,
                                                                          problem: str) -> None:
    run = Run(tmp_path / "c.db")
    run("init", "--name", "C")
    before = log_fingerprint(run.db)
    _, err = run("character", "create", value, "--race", "Humain", code=1)
    tail = "." if problem == "cannot be empty" else "; an id is plain visible text."
    assert err == f"Error: Character id {problem}{tail}\n" or (problem != "cannot be empty" and
                                                             err.startswith(f"Error: Character id {problem}")), err
    assert err.count("\n") == 1 and log_fingerprint(run.db) == before
    assert id_problem(value) is not None


def test_combat_names_combatants_items_and_content_keys_refuse_control_characters(tmp_path: Path) -> None:
    run = Run(tmp_path / "c.db")
    run("init", "--name", "C")
    run("character", "create", "thor", "--race", "Humain")
    pack = tmp_path / "pack.json"
    human = json.loads((ROOT / "cristal_events/rulesets/cristal/data/races.json").read_text(encoding="utf-8"))[0]
    pack.write_text(json.dumps({"races": [{**human, "name": "Orque\x1b[2J"}]}), encoding="utf-8")
    before = log_fingerprint(run.db)
    for args, start in [
        (("combat", "start", "rixe\x07", "--with", "thor"), "Error: Combat name 'rixe\\x07' contains \\x07"),
        (("combat", "start", "rixe", "--with", "thor,yo\u202erk", "--stat", "yo\u202erk:PV=3"),
         "Error: Combatant id 'yo\\u202erk' contains \\u202e"),
        (("item", "add", "thor", "Épée\rlongue", "--att", "1"), "Error: Item name 'Épée\\rlongue' contains \\r"),
        (("content", "load", str(pack), "--name", "pack\x1b"), "Error: Content pack name 'pack\\x1b' contains \\x1b"),
        (("content", "load", str(pack)), "Error: The race name 'Orque\\x1b[2J' contains \\x1b"),
    ]:
        _, err = run(*args, code=1)
        assert err.startswith(start) and err.endswith("; an id is plain visible text.\n"), (args, err)
    assert log_fingerprint(run.db) == before
    # display names and free text keep any text: only ids are plain
    run("character", "create", "lia", "--race", "Elfe", "--name", "Lia\x1b[1m")


def test_illergan_ids_refuse_control_characters(tmp_path: Path) -> None:
    run = Run(tmp_path / "i.db")
    run("init", "--name", "I", "--ruleset", "illergan", "--seed", "4")
    run("content", "load", "--example")
    before = log_fingerprint(run.db)
    _, err = run("character", "creature", "gob\x1b", "--stat", "Fo=3", "--stat", "Dex=45", "--stat", "Vol=10",
                 "--stat", "Vit=25", "--stat", "Adresse=55", "--pv", "30", code=1)
    assert err == ("Error: Character id 'gob\\x1b' contains \\x1b, a control or invisible formatting character; "
                   "an id is plain visible text.\n")
    for cid in ("a", "b"):
        run("character", "creature", cid, "--stat", "Fo=3", "--stat", "Dex=45", "--stat", "Vol=10",
            "--stat", "Vit=25", "--stat", "Adresse=55", "--pv", "30")
    mid = log_fingerprint(run.db)
    _, err = run("combat", "start", "gué\u2066", "a", "b", code=1)
    assert err.startswith("Error: Fight name 'gué\\u2066' contains \\u2066")
    _, err = run("carry", "a", "Corde\n", "1", code=1)
    assert err.startswith("Error: An object's name 'Corde⏎' contains ⏎")
    assert log_fingerprint(run.db) == mid and mid[0] == before[0] + 2
    example = json.loads((ROOT / "cristal_events/rulesets/illergan/data/example_pack.json").read_text(encoding="utf-8"))
    example["races"][0]["name"] += "\u2066"
    pack = tmp_path / "pack.json"
    pack.write_text(json.dumps(example), encoding="utf-8")
    _, err = run("content", "load", str(pack), code=1)
    assert err.startswith("Error: A name in the pack's races '") and "contains \\u2066" in err, err
    _, err = run("content", "load", "--example", "--name", "exemple\x1b", code=1)
    assert err.startswith("Error: Content pack name 'exemple\\x1b' contains \\x1b"), err
    assert log_fingerprint(run.db) == mid


# ------------------------------------------------------------------------- every output path
def _raw_prints(path: Path) -> list[str]:
    """The calls of ``click.echo``/``click.secho``/``print``/``*.write`` in a CLI module that print
    something other than a constant (or a constant's translation, ``_("...")``) or JSON (``to_json(...)``,
    ``....decode()`` of msgspec's JSON)."""
    import ast

    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        raw = (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "click"
               and f.attr in ("echo", "secho")) or (isinstance(f, ast.Name) and f.id == "print") \
            or (isinstance(f, ast.Attribute) and f.attr == "write" and ast.unparse(f.value).startswith("sys."))
        if not raw or not node.args:
            continue
        arg = node.args[0]
        translated = (isinstance(arg, ast.Call) and ast.unparse(arg.func) == "_" and len(arg.args) == 1
                      and isinstance(arg.args[0], ast.Constant) and not arg.keywords)  # a catalog's own text
        if isinstance(arg, ast.Constant) or translated or (isinstance(arg, ast.Call) and (
                ast.unparse(arg.func) == "to_json" or ast.unparse(arg.func).endswith(".decode"))):
            continue
        found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_every_cli_text_line_goes_through_echo() -> None:
    """The text outputs are safe because each line goes through ``cli.common.echo`` (or ``emit_lines``),
    which renders it with ``visible``: a command printing a value with ``click.echo`` would bypass it.
    Print a text line with ``echo(line)``; JSON with ``click.echo(to_json(data))``."""
    cli_dir = ROOT / "cristal_events" / "cli"  # the core commands and the rulesets' (cli/cristal/, cli/illergan/)
    modules = [p for p in cli_dir.rglob("*.py") if p != cli_dir / "common.py"]
    modules.append(ROOT / "cristal_events" / "web" / "cli.py")  # the web table's own commands (serve, access)
    assert len(modules) >= 10
    assert [line for p in sorted(modules) for line in _raw_prints(p)] == []


def test_a_shared_campaign_script_cannot_drive_the_terminal_through_demo(tmp_path: Path) -> None:
    """Scripts are shared between game masters: ``demo --sample`` prints the sheets and the audit of
    what a script named."""
    script = tmp_path / "hostile.toml"
    script.write_text('[campaign]\nname = "Camp\\u001b[2J"\nruleset = "cristal"\nseed = 3\n\n'
                      '[[step]]\nrun = "character create"\nargs = ["thor"]\nrace = "Humain"\n'
                      'name = "Thor\\u001b[2J\\u001b]0;pwned\\u0007\\r\\n    99 faux"\nplayer = "Alice\\u202e"\n\n'
                      '[[step]]\nrun = "xp award"\nargs = ["thor", "60"]\nreason = "r\\u001b[31m"\n', encoding="utf-8")
    run = Run(tmp_path / "unused.db")
    out, _ = run("demo", str(tmp_path / "demo"), "--sample", str(script))
    assert "Built « Camp\\x1b[2J »" in out and "Thor\\x1b[2J\\x1b]0;pwned\\x07\\r⏎    99 faux (thor)" in out
    assert "XP of Thor\\x1b[2J" in out and "award: r\\x1b[31m" in out
    run("script", "check", str(script))
    run("script", "run", str(script), str(tmp_path / "s.db"))
