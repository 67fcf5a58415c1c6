"""Campaign scripts are shared between game masters, so they are untrusted: a script may only change the
campaign it builds. Every step that would read or write another file is refused by ``script check`` and
``script run`` with its step number, before anything runs (docs/exports.md, Campaign scripts)."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from helpers import one_error

from cristal_events import errors
from cristal_events.cli import cli, core_commands, ruleset_commands
from cristal_events.cli import script as scripts

SAMPLES = Path(__file__).resolve().parents[2] / "sample_campaigns"

HEAD = '''\
[campaign]
name = "Partagée"
ruleset = "{ruleset}"
seed = 3

[[step]]
run = "session start"
title = "Arrivée"

[[step]]
run = "note"
args = ["Le MJ tranche."]

'''


def _cli(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _attack(tmp_path: Path, step: str, ruleset: str = "cristal") -> Path:
    path = tmp_path / "partagee.toml"
    path.write_text(HEAD.format(ruleset=ruleset) + "[[step]]\n" + step, encoding="utf-8")
    return path


def _refused(tmp_path: Path, step: str, why: str, ruleset: str = "cristal", line: int = 14) -> None:
    """Step 3 (its [[step]] at line 14, or the line of the key at fault) is refused by check and by run;
    run writes nothing."""
    path = _attack(tmp_path, step, ruleset)
    expected = (f"Error: {path}, line {line}: step 3 is refused: {why} (a campaign script may only change the "
                "campaign it builds; see docs/exports.md, Campaign scripts).")
    before = sorted(p.name for p in tmp_path.iterdir())
    assert one_error(_cli("script", "check", str(path))) == expected
    target = tmp_path / "built.db"
    assert one_error(_cli("script", "run", str(path), str(target))) == expected
    assert not target.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_an_export_onto_another_file_is_refused_and_the_file_is_untouched(tmp_path):
    victim = tmp_path / "notes_du_mj.md"
    victim.write_text("mes notes", encoding="utf-8")
    _refused(tmp_path, f'run = "export timeline"\nformat = "md"\noutput = "{victim}"\n',
             "a script may not run 'export timeline'")
    assert victim.read_text(encoding="utf-8") == "mes notes"


def test_a_demo_that_would_delete_a_campaign_is_refused(tmp_path):
    folder = tmp_path / "table"
    folder.mkdir()
    (folder / "compagnie_du_cristal.db").write_bytes(b"my campaign")
    _refused(tmp_path, f'run = "demo"\nargs = ["{folder}"]\n', "a script may not run 'demo'")
    assert (folder / "compagnie_du_cristal.db").read_bytes() == b"my campaign"


def test_init_and_import_of_another_campaign_are_refused(tmp_path):
    _refused(tmp_path, f'run = "init"\nargs = ["{tmp_path / "autre.db"}"]\nname = "Autre"\n',
             "a script may not run 'init'")
    (tmp_path / "x.jsonl").write_text("", encoding="utf-8")
    _refused(tmp_path, f'run = "import"\nargs = ["{tmp_path / "x.jsonl"}", "{tmp_path / "autre.db"}"]\n',
             "a script may not run 'import'")
    assert not (tmp_path / "autre.db").exists()


def test_scripts_running_scripts_and_verify_file_are_refused(tmp_path):
    _refused(tmp_path, f'run = "script run"\nargs = ["{tmp_path / "a.toml"}", "{tmp_path / "b.db"}"]\n',
             "a script may not run 'script run'")
    _refused(tmp_path, f'run = "verify"\nfile = "{tmp_path / "x.jsonl"}"\n', "a script may not run 'verify'")


def test_a_content_pack_read_from_a_path_is_refused_in_both_rulesets(tmp_path):
    pack = tmp_path / "pack.json"
    pack.write_text('{"races": []}', encoding="utf-8")
    _refused(tmp_path, f'run = "content load"\nargs = ["{pack}"]\n', "a script may not run 'content load'")
    _refused(tmp_path, f'run = "content load"\nargs = ["{pack}"]\n',
             "a script may not give 'content load' arguments (only example = true, the packaged pack)",
             ruleset="illergan", line=16)


def test_an_option_smuggled_in_the_arguments_is_refused(tmp_path):
    _refused(tmp_path, 'run = "note"\nargs = ["x", "--topic=y"]\n',
             "the argument '--topic=y' would be read as an option; give options as keys", line=16)


def test_run_refuses_the_whole_script_before_its_first_step(tmp_path):
    """The forbidden step comes last; no earlier step ran (no campaign, no partial file)."""
    path = _attack(tmp_path, f'run = "export timeline"\noutput = "{tmp_path / "out.md"}"\n')
    res = _cli("script", "run", str(path), str(tmp_path / "built.db"))
    assert "step 3 is refused" in one_error(res)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["partagee.toml"]


def test_every_cli_command_outside_the_allow_list_is_refused(tmp_path):
    """A command added to the CLI later is refused until it is listed in SCRIPT_STEPS."""
    def walk(cmds, prefix=""):
        for name, cmd in cmds.items():
            if isinstance(cmd, click.Group):
                yield from walk(cmd.commands, f"{prefix}{name} ")
            else:
                yield f"{prefix}{name}"

    for ruleset in ("cristal", "illergan"):
        every = set(walk({**core_commands(), **ruleset_commands(ruleset)}))
        outside = every - set(scripts.SCRIPT_STEPS[ruleset])
        assert {"export timeline", "import", "init", "demo", "script run", "script check", "verify"} <= outside
        for command in sorted(outside):
            text = HEAD.format(ruleset=ruleset) + f'[[step]]\nrun = "{command}"\n'
            with pytest.raises(errors.ScriptError, match=rf"line 14: step 3 is refused: a script may not run '{command}'"):
                scripts.check(scripts.parse(text, "s.toml"))


def test_the_allow_list_names_real_commands_and_options_none_taking_a_path():
    for ruleset, steps in scripts.SCRIPT_STEPS.items():
        commands = {**core_commands(), **ruleset_commands(ruleset)}
        for run, (options, _) in steps.items():
            cmd = scripts._resolve(ruleset, run.split())
            assert cmd is not None, (ruleset, run)
            flags = {o: p for p in cmd.params if isinstance(p, click.Option) for o in p.opts}
            for option in options:
                assert "--" + option.replace("_", "-") in flags, (ruleset, run, option)
            for p in cmd.params:
                allowed = any(o.removeprefix("--").replace("-", "_") in options for o in p.opts)
                if allowed or (isinstance(p, click.Argument) and steps[run][1]):
                    assert not isinstance(p.type, (click.Path, click.File)), (ruleset, run, p.name)
        assert commands


def test_the_sample_campaigns_are_allowed(tmp_path):
    for sample in sorted(SAMPLES.glob("*.toml")):
        res = _cli("script", "check", str(sample))
        assert res.exit_code == 0, res.output
        assert "none reads or writes another file" in res.output


def test_demo_still_builds_the_samples_of_both_rulesets(tmp_path):
    for ruleset in ("cristal", "illergan"):
        res = _cli("demo", str(tmp_path / ruleset), "--ruleset", ruleset, "--json")
        assert res.exit_code == 0, res.output
    assert (tmp_path / "illergan" / "illergan_gue_des_loups.db").is_file()


def test_there_is_one_script_error_class():
    assert scripts.ScriptError is errors.ScriptError
    from cristal_events import jobs

    assert jobs.ScriptError is errors.ScriptError


def test_a_script_nested_too_deeply_or_too_large_is_one_sentence(tmp_path):
    deep = tmp_path / "deep.toml"
    deep.write_text('[campaign]\nname = "x"\n[[step]]\nrun = "note"\nargs = ' + "[" * 100_000 + "]" * 100_000 + "\n",
                    encoding="utf-8")
    assert one_error(_cli("script", "check", str(deep))) == (
        f"Error: {deep}, line 1: the script is nested too deeply to be a campaign script.")
    huge = tmp_path / "huge.toml"
    huge.write_bytes(b"#" * (scripts.MAX_SCRIPT_BYTES + 1))
    assert one_error(_cli("script", "check", str(huge))) == (
        f"Error: {huge} is {scripts.MAX_SCRIPT_BYTES + 1} bytes; a campaign script is at most 4 MB.")
