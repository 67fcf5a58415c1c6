"""A command's catch-up rewrites only what changed (issue 20, the command's levers): a note rebuilds
no combat view and no sheet, the sessions table gets only the sessions the fold replaced, and a
campaign kept open reuses the state it checkpointed unless another writer checkpointed since. The
read models always end as a rebuild leaves them (``runner.verify``)."""

from __future__ import annotations

import pytest
from cristal_events.projections import runner
from cristal_events.projections.cristal_combats import CristalCombats
from cristal_events.projections.timeline import Sessions

from cristal_events import projections
from cristal_events.rulesets.cristal import characters as C
from cristal_events.service import Campaign, RecordNote


@pytest.fixture
def camp(backend):
    """Four ended sessions, on each backend (the levers are the store's: checkpoint_head, move_checkpoint)."""
    c = projections.attach(Campaign.create(backend, name="C", ruleset="cristal", seed=3))
    for n in range(4):
        c.start_session(f"Soirée {n}")
        if n == 0:
            c.execute(C.CreateCharacter(id="thor", race="Nain"))
        c.execute(C.AwardXp(characters=("thor",), amount=100, reason=f"quête {n}"))
        c.end_session()
    yield c
    c.close()


def sessions(camp):
    return camp.store.conn.execute("SELECT * FROM sessions ORDER BY number").fetchall()


def test_a_note_builds_no_combat_view_and_writes_no_sheet(camp, monkeypatch):
    views, written = [], []
    real_rows, real_replace = CristalCombats.rows, camp.store.replace_rows
    monkeypatch.setattr(CristalCombats, "rows", lambda self, state: views.append(1) or real_rows(self, state))
    monkeypatch.setattr(camp.store, "replace_rows", lambda table, cols, rows: written.append((table, len(rows)))
                        or real_replace(table, cols, rows))
    real_copy = camp.store.copy_log_rows  # the timeline's rows are copied from the log (Timeline.log_columns)
    monkeypatch.setattr(camp.store, "copy_log_rows", lambda table, *args: written.append((table, None))
                        or real_copy(table, *args))
    camp.execute(RecordNote(text="La pluie tombe."))
    assert views == []
    assert [t for t, _ in written] == ["timeline"]
    camp.execute(C.AwardXp(characters=("thor",), amount=5, reason="bonus"))
    # an event of the rules that touches no fight: still no combat drawn again (only the fights a
    # command changed are, CristalCombats.changed_rows), but thor's sheet is written
    assert views == []
    assert ("cristal_sheets", 1) in written
    assert runner.verify(camp) == []


def test_sessions_rows_written_are_only_the_sessions_that_changed(camp, monkeypatch):
    written = []
    real = camp.store.replace_rows
    monkeypatch.setattr(camp.store, "replace_rows", lambda table, cols, rows: written.append((table, rows))
                        or real(table, cols, rows))
    camp.start_session("Soirée 5")
    assert [(r[0], r[6]) for t, rows in written if t == "sessions" for r in rows] == [(5, 1)]
    written.clear()
    camp.execute(RecordNote(text="Dans la session."))
    camp.end_session()
    assert {r[0] for t, rows in written if t == "sessions" for r in rows} == {5}
    assert sessions(camp)[-1][6] == 0 and len(sessions(camp)) == 5
    assert runner.verify(camp) == []


def test_a_state_checkpointed_by_another_writer_is_read_again(camp, backend):
    other = projections.attach(Campaign.open(backend))
    other.start_session("Ailleurs")  # another process's catch-up writes the sessions' checkpoint
    other.execute(RecordNote(text="Écrit par l'autre."))
    other.end_session()
    other.close()
    camp.execute(RecordNote(text="Écrit ici."))
    rows = sessions(camp)
    assert [r[1] for r in rows][-1] == "Ailleurs" and len(rows) == 5
    assert runner.verify(camp) == []


def test_the_kept_state_is_used_only_while_it_is_the_checkpoint(camp):
    camp.execute(RecordNote(text="une"))  # leaves the sessions' state kept for this campaign
    version, position, state = runner._written[camp.store]["sessions"]
    assert camp.store.checkpoint_head("sessions") == (version, position)
    p = next(p for p in projections.for_campaign(camp) if isinstance(p, Sessions))
    assert runner._checkpoint(camp, p)[1] is state
    runner._written[camp.store]["sessions"] = (version, position - 1, "stale")  # not the stored checkpoint
    again = runner._checkpoint(camp, p)[1]

    assert again != "stale" and again.current is not None


def test_an_unchanged_state_moves_its_checkpoint_without_writing_the_state_again(camp, monkeypatch):
    camp.execute(RecordNote(text="une"))  # the states are now kept, as this process encoded them
    advanced, put = [], []
    real_advance, real_put = camp.store.move_checkpoint, camp.store.put_checkpoint
    monkeypatch.setattr(camp.store, "move_checkpoint", lambda n, v, pos: advanced.append(n) or real_advance(n, v, pos))
    monkeypatch.setattr(camp.store, "put_checkpoint", lambda n, v, pos, b: put.append(n) or real_put(n, v, pos, b))
    before = camp.store.checkpoint("sessions")
    camp.execute(RecordNote(text="deux"))  # outside any session: the sessions' state does not change
    after = camp.store.checkpoint("sessions")
    assert "sessions" in advanced and "sessions" not in put
    assert after == (before[0], camp.store.last_position(), before[2])
    camp.start_session("Soirée 9")  # it changes: written again
    assert "sessions" in put
    assert runner.verify(camp) == []


def test_the_sessions_checkpoint_keeps_no_copy_of_their_rows_and_a_fresh_open_reads_them(camp, backend):
    camp.start_session("Soirée 5")
    camp.execute(RecordNote(text="Dans la session."))
    version, position, state = camp.store.checkpoint("sessions")
    assert (version, position, state) == (Sessions.version, camp.store.last_position(), None)
    other = projections.attach(Campaign.open(backend))  # no kept state: the rows are read back
    p = next(p for p in projections.for_campaign(other) if isinstance(p, Sessions))
    read = runner._checkpoint(other, p)[1]
    assert {s.number for s in [*read.others.values(), read.current]} == {1, 2, 3, 4, 5}
    assert read.current.number == 5 and read.current.open == 1
    other.execute(RecordNote(text="Encore dedans."))
    other.end_session()
    other.start_session("Soirée 6")
    assert [(r[0], r[5], r[6]) for r in sessions(other)][-2:] == [(5, 4, 0), (6, 1, 1)]
    assert runner.verify(other) == []
    other.close()


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # a row only SQLite refuses (an integer past 2**63)
def test_a_sessions_catch_up_that_could_not_write_a_row_keeps_the_state_in_the_checkpoint(camp, monkeypatch):
    real = Sessions.changed_rows

    def unholdable(self, before, after):  # a row SQLite refuses: the table then lacks it
        out = real(self, before, after)
        rows, gone = out["sessions"]
        return {"sessions": ([(*r[:5], 2**70, r[6]) for r in rows], gone)}

    monkeypatch.setattr(Sessions, "changed_rows", unholdable)
    problems: list[str] = []
    camp.hooks.clear()
    camp.start_session("Soirée 5")
    runner.catch_up(camp, problems=problems)
    assert problems and "sessions" in problems[0]
    assert camp.store.checkpoint("sessions")[2] is not None  # the state, since the rows lack it
    monkeypatch.setattr(Sessions, "changed_rows", real)
    camp.execute(RecordNote(text="Après."))
    runner.catch_up(camp, problems=problems)
    assert camp.store.checkpoint("sessions")[2] is not None  # still: the table still lacks session 5
    runner.rebuild(camp)
    assert camp.store.checkpoint("sessions")[2] is None and runner.verify(camp) == []
