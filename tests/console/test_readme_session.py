"""The README's "A session at the table" is a real console session: its lines, typed into the console
on a new campaign, print what the README shows (the output it prints under each line, the refusal)."""

from __future__ import annotations

import re
import shlex
import subprocess

from console_helpers import CRISTAL, ENV, ROOT, play


def transcript() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## A session at the table"):]
    block = section[section.index("```text\n") + len("```text\n"):]
    return block[:block.index("```\n")].splitlines()


def test_the_readme_session_is_what_the_console_prints(tmp_path):
    lines = transcript()
    assert lines[0].startswith("$ cristal init taverne.db") and lines[1] == "$ cristal --db taverne.db play"
    db = tmp_path / "taverne.db"
    words = shlex.split(lines[0].removeprefix("$ "))  # cristal init taverne.db --name ...
    subprocess.run([*CRISTAL, "init", str(db), *words[3:]], check=True, env=ENV, capture_output=True)
    typed = [re.sub(r"^taverne( \w+)?> ", "", line) for line in lines if re.match(r"^taverne( \w+)?> ", line)]
    shown = [line for line in lines[2:] if not re.match(r"^taverne( \w+)?> ", line)  # what it printed,
             and not line.startswith((" Session 1 «", "  " * 20))]  # not the bottom bar and its caption
    assert len(shown) == 16
    res = play(db, "\n".join(typed) + "\n")
    printed = (res.stdout + res.stderr).splitlines()
    missing = [line for line in shown if line not in printed]
    assert missing == [], res.stdout + res.stderr
    assert res.stderr == "Error: It is york's turn (smallest IT), not thor's.\n"
    assert res.returncode == 1  # that refused line

