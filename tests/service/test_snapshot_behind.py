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


def test_a_face_keeping_the_campaign_open_writes_the_head_snapshot_when_it_closes(db_path, monkeypatch):
    """The console and the web table hold the state in memory (``Kept``): their commands write no
    snapshot at the head, which would put a whole state's encoding into one command in every few
    dozen; the snapshot is written once, when the campaign is closed, for the next process."""
    from cristal_events.cli.inprocess import Kept

    monkeypatch.setattr(service, "SNAPSHOT_EVERY", 100)
    monkeypatch.setattr(service, "SNAPSHOT_BEHIND", 10)
    init_campaign(db_path, name="T").close()
    kept = Kept(str(db_path))
    camp = kept(True)
    assert camp.head_snapshots is False
    for i in range(25):  # positions 2..26: two commands' worth of SNAPSHOT_BEHIND past the start
        camp.execute(RecordNote(text=str(i)))
    assert _positions(camp) == []
    kept.close()
    again = open_campaign(db_path)
    assert _positions(again) == [26]
    assert again.state() == again.state_at(26) and again._snapshot_at == 26  # folded from it
    assert again.check_snapshots() == []
    again.snapshot_head()  # near enough already: nothing more
    assert _positions(again) == [26]
    again.close()


def test_the_head_snapshot_at_close_leaves_a_log_another_writer_moved_on(db_path, monkeypatch):
    monkeypatch.setattr(service, "SNAPSHOT_EVERY", 100)
    monkeypatch.setattr(service, "SNAPSHOT_BEHIND", 10)
    camp = init_campaign(db_path, name="T")
    camp.head_snapshots = False
    for i in range(12):
        camp.execute(RecordNote(text=str(i)))
    other = open_campaign(db_path)
    other.head_snapshots = False
    other.execute(RecordNote(text="later"))  # the log is at 14; camp's state at 13
    camp.snapshot_head()
    assert _positions(camp) == []  # its state is not the head's any more: the next process folds
    other.snapshot_head()
    assert _positions(other) == [14]
    camp.close()
    other.close()
