"""Snapshots stay few (thinned as the log grows) and time travel from them equals a fold from scratch."""

from __future__ import annotations

from pathlib import Path

import pytest

import ledger_ruleset as L
from cristal_events import init_campaign
from cristal_events import service


@pytest.fixture
def small_snapshots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service, "SNAPSHOT_EVERY", 10)
    monkeypatch.setattr(service, "SNAPSHOT_KEEP", 4)


@pytest.mark.parametrize("last,spacing", [(9, 10), (40, 10), (41, 10), (50, 20), (80, 20), (99, 20), (100, 40), (201, 80)],
                         ids=lambda v: str(v))
def test_the_spacing_doubles_to_keep_about_snapshot_keep(small_snapshots: None, last: int, spacing: int) -> None:
    assert service.snapshot_spacing(last) == spacing


def test_snapshots_are_thinned_and_time_travel_still_agrees(small_snapshots: None, tmp_path: Path) -> None:
    camp = init_campaign(tmp_path / "s.db", name="Instantanés", ruleset="ledger", seed=1)
    for i in range(200):
        camp.execute(L.AwardXp(character="thor" if i % 3 else "york", amount=i + 1))
    kept = [p for (p,) in camp.store.conn.execute("SELECT position FROM snapshots ORDER BY position")]
    assert kept == [10, 80, 160, 200]  # the first of each 80-wide bucket, and the latest
    for position in (1, 9, 10, 11, 77, 80, 123, 159, 199, 201):
        world = camp._initial()
        for rec in camp.store.read_all(until=position):
            world = camp.fold(world, rec)
        assert camp.state_at(position).rules == world.rules
        assert camp.state_at(position).core.position == position
    camp.close()
