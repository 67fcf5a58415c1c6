"""A third ruleset plugged in through the public surface only (issue 15 item 6).

The test ruleset of ``ledger_ruleset.py`` is registered with :func:`cristal_events.rulesets.register`
and nothing else (the conftest calls its ``register()``); its class declares its read model
(``ledger_balances``) and its CLI module (``cristal balance``). No core file names it.
"""

from __future__ import annotations

import json
from pathlib import Path

import cristal_events.projections.runner  # noqa: F401  (projections.runner)
import ledger_ruleset as L
import pytest
from click.testing import CliRunner

from cristal_events import Campaign, init_campaign, projections, rulesets
from cristal_events.cli import cli
from cristal_events.errors import CristalError

ROOT = Path(__file__).resolve().parents[2]


def test_the_ledger_ruleset_is_known_through_register_alone() -> None:
    assert "ledger" in rulesets.names()
    assert rulesets.get("ledger") is L.RULESET
    assert rulesets.module("ledger") is L
    # no core file names it: the engine finds it only through what it registered and declares
    core = [*sorted((ROOT / "cristal_events").rglob("*.py")), *sorted((ROOT / "projections").rglob("*.py"))]
    assert core
    assert not [p for p in core if "ledger_ruleset" in p.read_text(encoding="utf-8")
                or "ledger_balances" in p.read_text(encoding="utf-8")]


def test_register_keeps_the_built_in_names_and_unregister_forgets(tmp_path: Path) -> None:
    with pytest.raises(CristalError, match="belongs to a built-in ruleset"):
        rulesets.register("cristal", L)
    assert rulesets.get("cristal").name == "cristal"
    rulesets.register("ledger", L)  # the same module again: nothing changes
    assert rulesets.get("ledger") is L.RULESET
    rulesets.unregister("ledger")
    try:
        assert "ledger" not in rulesets.names()
        with pytest.raises(CristalError, match="Unknown ruleset 'ledger'"):
            rulesets.get("ledger")
    finally:
        rulesets.register("ledger", L)
    assert rulesets.get("ledger") is L.RULESET


def test_its_declared_read_model_is_built_and_verified(tmp_path: Path) -> None:
    db = tmp_path / "l.db"
    camp = init_campaign(db, name="Plug", ruleset="ledger", seed=3)
    camp.execute(L.AwardXp(character="thor", amount=100, reason="départ"))
    camp.execute(L.SpendXp(character="thor", amount=30, what="une épée"))
    camp.execute(L.AwardXp(character="ana", amount=7))
    # the core's read models and the ruleset's own, in the order of their modules' names
    assert sorted(p.name for p in projections.for_campaign(camp)) == ["ledger_balances", "sessions", "timeline"]
    projections.runner.catch_up(camp)
    assert camp.store.read_model_rows("ledger_balances", order_by=("character",)) == [
        {"character": "ana", "xp": 7}, {"character": "thor", "xp": 70}]
    assert camp.store.read_model_rows("ledger_balances", where={"character": "thor"}) == [
        {"character": "thor", "xp": 70}]
    assert projections.runner.verify(camp) == []
    camp.close()


def test_its_cli_command_exists_for_its_campaigns_only(tmp_path: Path) -> None:
    db = tmp_path / "l.db"
    camp = init_campaign(db, name="Plug", ruleset="ledger", seed=3)
    camp.execute(L.AwardXp(character="thor", amount=100, reason="départ"))
    camp.execute(L.AwardXp(character="ana", amount=5, reason="bonus"))
    camp.close()
    runner = CliRunner()
    listing = runner.invoke(cli, ["--db", str(db), "--help"])
    assert listing.exit_code == 0 and "balance" in listing.output
    assert "  balance " in listing.output
    text = runner.invoke(cli, ["--db", str(db), "balance"])
    assert text.exit_code == 0, text.output
    assert text.output.splitlines() == [f"{'ana':<12} {5:>6} XP", f"{'thor':<12} {100:>6} XP"]
    one = runner.invoke(cli, ["--db", str(db), "balance", "thor", "--json"])
    assert json.loads(one.output) == [{"character": "thor", "xp": 100}]
    with Campaign.open(db, readonly=True) as c:  # the command caught its read model up in the file
        assert c.store.read_model_current("ledger_balances", 1)
    cristal_db = tmp_path / "c.db"
    init_campaign(cristal_db, name="Livre", ruleset="cristal").close()
    other = runner.invoke(cli, ["--db", str(cristal_db), "balance"])
    assert other.exit_code == 2 and "No such command 'balance'" in other.output


def test_its_exports_include_only_the_tables_it_declares(tmp_path: Path) -> None:
    """The ledger rules declare no ``export_tables``: the recap has no XP ledger; the books' rules declare it."""
    from cristal_events.cli.export import ledger_or_none

    assert L.RULESET.export_tables == () and rulesets.get("cristal").export_tables == ("xp_ledger",)
    db = tmp_path / "l.db"
    camp = init_campaign(db, name="Plug", ruleset="ledger", seed=3)
    camp.execute(L.AwardXp(character="thor", amount=100, reason="départ"))
    assert ledger_or_none(camp) is None
    camp.close()
    out = tmp_path / "recap.md"
    result = CliRunner().invoke(cli, ["--db", str(db), "export", "timeline", "--format", "md", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "thor reçoit 100 XP" in out.read_text(encoding="utf-8")
    book = tmp_path / "c.db"
    with init_campaign(book, name="Livre", ruleset="cristal") as c:
        assert ledger_or_none(c) == []
