"""A one-shot command imports what it needs and no more (issue 20, "one-shot CLI write"): the group's
``--help`` lists every command from a static table (cristal_events/cli/listing.py) instead of importing
every command module, and a ``note`` or an ``xp award`` run as a process of its own leaves the other
commands, the rules' telling of events and the libraries only some commands use unimported. Each
check runs a fresh interpreter and reads its ``sys.modules``, as
tests/store/test_sql_behind_store.py does for sqlite-utils."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: what no one-shot write outside a fight imports: the telling of events (replay, exports) and the terminal sheet; the
#: entry-point scan of installed packages (only a ruleset that is not built in needs it); the TOML
#: parser of content packs and the "did you mean" matcher (a pack loaded, a name not found); the json
#: module (the rules' data files are read by msgspec, loaded already); what only a rebuild uses
NEVER_IN_A_WRITE = (
    # a fight's decisions, corrections, summaries and views (imported when first used: a command outside
    # a fight needs none; tests/rules/test_lazy_fights.py)
    *(f"cristal_events.rulesets.cristal.fights.{m}" for m in (
        "chance", "common", "corrections", "crystal_spells", "decide", "spells", "views")),
    "cristal_events.rulesets.cristal.narration",
    "cristal_events.rulesets.cristal.sheet_text",
    "importlib.metadata",
    "tomllib",
    "difflib",
    "json",
    # the temporary file and the signal of a rebuild's second process (projections/runner.py)
    "tempfile",
    "signal",
    # OpenSSL's hashes (a write hashes its row with the interpreter's own SHA-256: log_rows.sha256), the
    # HMAC of the keyed dice and the seeded RNG: a command that rolls nothing loads none of them
    "hashlib",
    "_hashlib",
    "hmac",
    "random",
    # pathlib, with urllib.parse and ipaddress: the write path names its files with os.path (store.path_text)
    "pathlib",
    "urllib.parse",
    # the Unicode tables: ASCII names and formulas need no decomposition (content.name_key, dice.parse)
    "unicodedata",
    # the combat rules and the count of idle cores (a fight; a big import, verify or rebuild)
    "cristal_events.rulesets.cristal.combat",
    "cristal_events.cores",
)

#: the command modules of the core besides the one a command lives in (cli/campaign.py has 'note')
OTHER_COMMAND_MODULES = tuple(f"cristal_events.cli.{m}" for m in (
    "audit", "copy", "correct", "demo", "dice", "export", "recap", "replay", "requests", "script", "secret",
    "sheet")) + ("cristal_events.web.cli", "cristal_events.console.cli")


def _modules_after(*args: str) -> tuple[set[str], str]:
    """The modules a fresh ``cristal ARGS`` process has imported when it ends, and its output."""
    code = ("import sys\nfrom cristal_events.cli import main\n"  # (no json here: it is on the list)
            "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "print('MODULES ' + ' '.join(sorted(sys.modules)))\n")
    # -S: no site, so no .pth file runs (this venv's editable install imports pathlib at start-up, which a
    # user's wheel install does not); the libraries are found on this process's path instead (the checkout first)
    libraries = dict.fromkeys(p for p in sys.path if p and os.path.isdir(p))
    out = subprocess.run([sys.executable, "-S", "-c", code, *args], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *libraries]),
                              "CRISTAL_LANG": "en"})
    lines = out.stdout.splitlines()
    assert lines and lines[-1].startswith("MODULES "), out.stdout + out.stderr
    return set(lines[-1].split()[1:]), "\n".join(lines[:-1]) + out.stderr


@pytest.fixture
def party(tmp_path):
    """A Lois du Cristal campaign with one character and its read models built."""
    from click.testing import CliRunner

    from cristal_events.cli import cli

    db = tmp_path / "party.db"
    for args in (["init", str(db), "--name", "Taverne"],
                 ["character", "create", "thor", "--race", "Humain", "--name", "Thor"],
                 ["xp", "award", "thor", "100", "--reason", "start"]):
        res = CliRunner().invoke(cli, ["--db", str(db), *args])
        assert res.exit_code == 0, res.output
    return db


def test_the_listing_table_matches_the_commands():
    """The static table is what the commands themselves say, in both languages (regenerate it with
    ``python -m cristal_events.cli.listing_build`` when this fails)."""
    from cristal_events.cli import CORE, listing, listing_build
    from cristal_events.cli import cristal as cristal_cli
    from cristal_events.cli import illergan as illergan_cli

    assert listing.LISTING == listing_build.build()
    assert set(listing.LISTING["core"]["en"]) == set(CORE)
    assert set(listing.LISTING["cristal"]["fr"]) == set(cristal_cli.PARTS)
    assert set(listing.LISTING["illergan"]["fr"]) == set(illergan_cli.PARTS)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_help_lists_every_command_as_the_commands_would_without_importing_them(party, lang):
    """``cristal --help`` shows each command's short help, cut by click, exactly as the loaded commands
    give it (click's own listing, over every command imported), and imports no command module."""
    import click
    from click.testing import CliRunner

    from cristal_events.cli import CristalGroup, cli

    ours = CliRunner().invoke(cli, ["--db", str(party), "--lang", lang, "--help"], terminal_width=100)
    assert ours.exit_code == 0, ours.output

    class Loaded(CristalGroup):  # the listing as click makes it from the commands, imported
        format_commands = click.Group.format_commands

    loaded = click.Group.__new__(Loaded)
    loaded.__dict__.update(cli.__dict__)
    theirs = CliRunner().invoke(loaded, ["--db", str(party), "--lang", lang, "--help"], terminal_width=100)
    assert theirs.exit_code == 0, theirs.output
    assert ours.output == theirs.output
    assert "  xp " in ours.output and "  note " in ours.output and "  serve " in ours.output

    modules, text = _modules_after("--db", str(party), "--lang", lang, "--help")
    assert ("Commandes:" if lang == "fr" else "Commands:") in text  # click's heading in the language too
    assert not [m for m in modules if m.startswith("cristal_events.cli.") and m not in (
        "cristal_events.cli.listing", "cristal_events.cli.common")], sorted(modules)
    assert "cristal_events.rulesets.cristal" not in modules  # the listing needs no rules


def test_a_one_shot_note_imports_only_what_it_needs(party):
    modules, text = _modules_after("--db", str(party), "note", "encore")
    assert "Note recorded at position" in text
    assert "cristal_events.cli.campaign" in modules  # the module of the command typed, and it only
    unneeded = [m for m in (*NEVER_IN_A_WRITE, *OTHER_COMMAND_MODULES, "cristal_events.cli.cristal.characters")
                if m in modules]
    assert unneeded == []


def test_a_one_shot_xp_award_imports_only_what_it_needs(party):
    modules, text = _modules_after("--db", str(party), "xp", "award", "thor", "5", "--reason", "bench")
    assert "thor receives 5 XP (bench)" in text
    assert "cristal_events.cli.cristal.xp" in modules  # the XP commands' own module, not the characters' one
    unneeded = [m for m in (*NEVER_IN_A_WRITE, *OTHER_COMMAND_MODULES, "cristal_events.cli.campaign",
                            "cristal_events.cli.cristal.characters", "cristal_events.cli.cristal.combat",
                            "cristal_events.cli.cristal.magic",
                            "cristal_events.receipts")  # (the session commands' module, which 'note' shares, reads receipts)
                if m in modules]
    assert unneeded == []
