"""Ruling D4 through the CLI (seed 000, L1395-L1415): ``--set alignment_beyond_20=cap`` keeps the -20 row's -10."""

from __future__ import annotations

import json

from click.testing import CliRunner

from cristal_events.cli import cli

FIGHT = ("combat", "start", "nuit", "--with", "paysan,demon", "--it", "demon=5", "--stat", "paysan:ALIGN=0",
         "--stat", "paysan:ATT=10", "--stat", "paysan:DMG=1d6", "--stat", "demon:ALIGN=-25",
         "--stat", "demon:DP=8", "--stat", "demon:PV=30")


def _attack(tmp_path, name, *settings, dice):
    db = str(tmp_path / f"{name}.db")
    runner = CliRunner()
    init = runner.invoke(cli, ["init", db, "--name", name, "--ruleset", "cristal", *settings])
    assert init.exit_code == 0, init.output
    assert runner.invoke(cli, ["--db", db, *FIGHT]).exit_code == 0
    out = runner.invoke(cli, ["--db", db, "combat", "attack", "nuit", "paysan", "demon", "--dice", dice, "--json"])
    assert out.exit_code == 0, out.output
    listed = runner.invoke(cli, ["--db", db, "settings"]).output
    return json.loads(out.output)["events"][0]["event"], listed


def test_a_neutral_attacking_a_demon_of_minus_25_with_each_setting(tmp_path):
    # L1381: the neutral feels -25; default -13 (10 + 10 - 13 = 7, a miss against DP 8); cap: -10 (10, a hit)
    half, listed = _attack(tmp_path, "Half", dice="10")
    assert (half["alignment_penalty"], half["swings"][0]["total"], half["swings"][0]["hit"]) == (-13, 7, False)
    assert "alignment_beyond_20" in listed and "default half" in listed and "L1415, D4" in listed
    cap, listed = _attack(tmp_path, "Cap", "--set", "alignment_beyond_20=cap", dice="10,3")
    assert (cap["alignment_penalty"], cap["swings"][0]["total"], cap["swings"][0]["hit"]) == (-10, 10, True)
    assert "(changed)" in next(line for line in listed.splitlines() if "alignment_beyond_20" in line)


def test_an_unknown_value_is_refused_and_nothing_is_written(tmp_path):
    db = tmp_path / "bad.db"
    out = CliRunner().invoke(cli, ["init", str(db), "--name", "Bad", "--ruleset", "cristal",
                                   "--set", "alignment_beyond_20=double"])
    assert out.exit_code != 0 and "alignment_beyond_20" in out.output
    assert not db.exists()
