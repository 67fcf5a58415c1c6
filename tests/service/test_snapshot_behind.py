"""The snapshot a command writes at the head when the newest one is SNAPSHOT_BEHIND events behind."""

from __future__ import annotations

import cristal_events.service as service
from cristal_events import init_campaign, open_campaign
from cristal_events.service import RecordNote


def _positions(camp) -> list[int]:
    return camp.store.snapshot_positions(camp._state_key())


def test_a_command_far_from_the_newest_snapshot_writes_one_at_the_head(db_path, monkeypatch):
    monkeypatch.setattr(service, "SNAPSHOT_EVERY", 100)
    monkeypatch.setattr(service, "SNAPSHOT_BEHIND", 10)
    camp = init_campaign(db_path, name="T")
    for i in range(9):  # positions 2..10: the newest state (position 10) is 10 events past the start
        camp.execute(RecordNote(text=str(i)))
    assert _positions(camp) == [10]
    for i in range(9):  # 11..19: fewer than 10 past the snapshot at 10
        camp.execute(RecordNote(text=str(i)))
    assert _positions(camp) == [10]
    camp.execute(RecordNote(text="20"))
    camp.execute(RecordNote(text="21"))
    # a bucket keeps its first snapshot and the latest: 20 replaced nothing, 30 replaces 20
    assert _positions(camp) == [10, 20]
    for i in range(10):
        camp.execute(RecordNote(text=str(i)))
    assert _positions(camp) == [10, 30]
    camp.close()
    again = open_campaign(db_path)  # the next process starts from the head's snapshot, and agrees
    assert again.state().core.position == 31
    assert again._snapshot_at == _positions(again)[-1]
    assert again.state() == again.state_at(31)
    assert again.check_snapshots() == []
    again.close()


def test_the_grid_snapshots_are_kept_and_the_count_stays_bounded(db_path, monkeypatch):
    monkeypatch.setattr(service, "SNAPSHOT_EVERY", 20)
    monkeypatch.setattr(service, "SNAPSHOT_BEHIND", 6)
    camp = init_campaign(db_path, name="T")
    for i in range(79):  # positions 2..80
        camp.execute(RecordNote(text=str(i)))
    kept = _positions(camp)
    assert kept[-1] == 80
    buckets = [p // 20 for p in kept]
    assert all(buckets.count(b) <= 2 for b in set(buckets)), kept  # the first of a bucket and the latest
    assert {20, 40, 60} <= set(kept)  # each crossing of SNAPSHOT_EVERY keeps its snapshot
    assert camp.check_snapshots() == []
    camp.close()


def test_no_snapshot_at_the_head_when_snapshots_are_off(db_path, monkeypatch):
    monkeypatch.setattr(service, "SNAPSHOT_EVERY", 0)
    monkeypatch.setattr(service, "SNAPSHOT_BEHIND", 2)
    camp = init_campaign(db_path, name="T")
    for i in range(6):
        camp.execute(RecordNote(text=str(i)))
    assert _positions(camp) == []
    camp.close()
