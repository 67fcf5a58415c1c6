"""Campaign scripts: the TOML format a person writes; malformed scripts are refused with line and reason."""

from __future__ import annotations

import pytest

from cristal_events.cli.script import ScriptError, check, parse
from cristal_events.cli.script import run as run_script

GOOD = '''\
[campaign]
name = "Essai"
seed = 3

[[step]]
run = "session start"
title = "Arrivée"
date = "1er Mai"

[[step]]
run = "note"
args = ["Le MJ tranche : pas de Chance ce soir."]
topic = "règle"
label = "regle"

[[step]]
run = "session end"
'''


def test_a_good_script_parses_into_steps_with_their_lines():
    s = parse(GOOD, "good.toml")
    assert s.header == {"name": "Essai", "seed": 3}
    assert [(st.line, st.run, st.args, st.options, st.label) for st in s.steps] == [
        (5, "session start", [], {"title": "Arrivée", "date": "1er Mai"}, ""),
        (10, "note", ["Le MJ tranche : pas de Chance ce soir."], {"topic": "règle"}, "regle"),
        (16, "session end", [], {}, ""),
    ]


BAD = [
    ("toml-syntax", GOOD.replace('title = "Arrivée"', 'title = "Arrivée'),
     "bad.toml, line 7: not valid TOML (Illegal character '\\n')."),
    ("no-campaign", GOOD.replace("[campaign]\n", "").replace('name = "Essai"\nseed = 3\n', ""),
     "bad.toml, line 1: the script needs a [campaign] table with at least a name."),
    ("no-name", GOOD.replace('name = "Essai"\n', ""),
     "bad.toml, line 1: the campaign needs a name (name = \"...\")."),
    ("unknown-header-key", GOOD.replace("seed = 3", "seed = 3\ncolour = \"blue\""),
     "bad.toml, line 4: unknown campaign key 'colour' (known: description, name, rounding, ruleset, seed, settings)."),
    ("seed-not-int", GOOD.replace("seed = 3", 'seed = "trois"'),
     "bad.toml, line 3: seed must be a whole number."),
    ("no-run", GOOD.replace('run = "note"\n', ""),
     "bad.toml, line 10: the step needs run = \"<command>\" (e.g. run = \"xp award\")."),
    ("args-not-list", GOOD.replace('args = ["Le MJ tranche : pas de Chance ce soir."]', 'args = "x"'),
     "bad.toml, line 12: args must be a list of texts or numbers."),
    ("dice-not-ints", GOOD.replace('topic = "règle"', 'topic = "règle"\ndice = ["six"]'),
     "bad.toml, line 14: dice must be a list of whole numbers (the faces rolled at the table)."),
    ("table-option", GOOD.replace('topic = "règle"', 'topic = { a = 1 }'),
     "bad.toml, line 13: option 'topic' must be a text, a number, true/false or a list of them."),
    ("unknown-label", GOOD.replace('run = "session end"', 'run = "session end"\nargs = ["@nowhere"]'),
     "bad.toml, line 16: @nowhere names no label of an earlier step."),
    ("label-twice", GOOD.replace('run = "session end"', 'run = "session end"\nlabel = "regle"'),
     "bad.toml, line 18: the label 'regle' is already used by an earlier step."),
    ("stray-section", GOOD + "\n[extra]\nx = 1\n",
     "bad.toml, line 19: unknown section or key 'extra' (a script has [campaign] and [[step]] only)."),
    ("no-steps", "[campaign]\nname = \"x\"\n", "bad.toml, line 2: the script has no [[step]]."),
]


@pytest.mark.parametrize("text, message", [(t, m) for _, t, m in BAD], ids=[i for i, _, _ in BAD])
def test_a_malformed_script_is_refused_naming_the_line_and_the_reason(text, message):
    with pytest.raises(ScriptError) as err:
        parse(text, "bad.toml")
    assert str(err.value) == message


CHECKED = [
    ("unknown-command", GOOD.replace('run = "note"', 'run = "nothing here"'),
     "bad.toml, line 10: unknown command 'nothing here' for the cristal rules."),
    ("unknown-option", GOOD.replace('topic = "règle"', 'colour = "red"'),
     "bad.toml, line 13: the command 'note' has no option --colour."),
    ("no-dice", GOOD.replace('topic = "règle"', 'dice = [3]'),
     "bad.toml, line 13: the command 'note' rolls no dice (it has no --dice option)."),
    ("unknown-ruleset", GOOD.replace("seed = 3", 'seed = 3\nruleset = "gurps"'),
     "bad.toml, line 1: unknown ruleset 'gurps' (known: cristal, illergan)."),
]


@pytest.mark.parametrize("text, message", [(t, m) for _, t, m in CHECKED], ids=[i for i, _, _ in CHECKED])
def test_a_step_the_cli_does_not_know_is_refused_before_anything_is_written(tmp_path, text, message):
    with pytest.raises(ScriptError) as err:
        run_script(parse(text, "bad.toml"), tmp_path / "c.db")
    assert str(err.value) == message
    assert not (tmp_path / "c.db").exists()


def test_a_refused_step_names_its_line_and_leaves_no_campaign(tmp_path):
    text = GOOD.replace('run = "session start"\ntitle = "Arrivée"\ndate = "1er Mai"', 'run = "session end"')
    with pytest.raises(ScriptError) as err:
        run_script(parse(text, "bad.toml"), tmp_path / "c.db")
    assert str(err.value) == "bad.toml, line 5: session end was refused: No session is open."
    assert list(tmp_path.iterdir()) == []


def test_a_script_runs_every_step_and_labels_their_positions(tmp_path):
    ran = run_script(parse(GOOD, "good.toml"), tmp_path / "c.db")
    assert [(r.line, r.run, r.positions) for r in ran] == [
        (5, "session start", (2, 2)), (10, "note", (3, 3)), (16, "session end", (4, 4))]
    check(parse(GOOD, "good.toml"))


def test_a_script_does_not_overwrite_a_campaign(tmp_path):
    (tmp_path / "c.db").write_bytes(b"")
    with pytest.raises(ScriptError, match="already exists; a script builds a new campaign"):
        run_script(parse(GOOD, "good.toml"), tmp_path / "c.db")
