"""The service: sessions, notes, settings, corrections, snapshots and time travel."""

from __future__ import annotations

import hashlib

import pytest

import cristal_events.service as service
from cristal_events import init_campaign, open_campaign
from cristal_events.errors import CristalError, RuleError
from cristal_events.service import ChangeSetting, Correct, RecordNote


def test_sessions_number_their_events(campaign):
    campaign.execute(RecordNote(text="avant"))
    campaign.start_session("Arrivée", "1er Mai")
    campaign.execute(RecordNote(text="pendant"))
    campaign.end_session()
    campaign.start_session("Suite")
    sessions = [(r.type, r.session) for r in campaign.store.read_all()]
    assert sessions == [("campaign.created", None), ("note.recorded", None), ("session.started", 1),
                        ("note.recorded", 1), ("session.ended", 1), ("session.started", 2)]
    assert [r.position for r in campaign.store.read_all(session=1)] == [3, 4, 5]


def test_session_commits_to_its_seed_and_reveals_it(campaign):
    start = campaign.start_session()[0].event
    end = campaign.end_session()[0].event
    assert len(start.seed_commitment) == 64
    assert hashlib.sha256(end.seed_reveal.encode()).hexdigest() == start.seed_commitment


def test_setting_changes_are_events_and_rounding_is_fixed(campaign):
    campaign.execute(ChangeSetting(key="pm_overdraw", value=False, reason="règle maison"))
    assert campaign.state().core.settings["pm_overdraw"] is False
    with pytest.raises(RuleError, match=r"The rounding mode is fixed for the whole campaign \(seed 000, L23\)"):
        campaign.execute(ChangeSetting(key="rounding", value="truncate"))
    with pytest.raises(RuleError, match="Unknown cristal setting 'teleport'"):
        campaign.execute(ChangeSetting(key="teleport", value=True))
    with pytest.raises(RuleError, match="Invalid cristal campaign setting"):
        campaign.execute(ChangeSetting(key="chain_attacks", value="deux"))
    assert campaign.store.count() == 2


def test_correction_of_an_uncorrectable_event_appends_nothing(campaign):
    campaign.execute(RecordNote(text="x"))
    with pytest.raises(RuleError, match="cannot be corrected"):
        campaign.execute(Correct(position=2, reason="typo", changes={"text": "y"}))
    with pytest.raises(RuleError, match="There is no event at position 99"):
        campaign.execute(Correct(position=99, reason="typo"))
    with pytest.raises(RuleError, match="A correction needs a reason"):
        campaign.execute(Correct(position=2, reason=" "))
    assert campaign.store.count() == 2


def test_state_at_is_time_travel_and_snapshots_agree(db_path, monkeypatch):
    monkeypatch.setattr(service, "SNAPSHOT_EVERY", 5)
    camp = init_campaign(db_path, name="T")
    for i in range(6):
        camp.start_session(f"S{i}")
        camp.execute(RecordNote(text=str(i)))
        camp.end_session()
    snaps = [r[0] for r in camp.store.conn.execute("SELECT position FROM snapshots ORDER BY position")]
    assert snaps and all(p % 5 in (0, 1, 2) for p in snaps)
    assert camp.state_at(3).core.sessions == 1
    assert camp.state_at(3).core.session == 1
    assert camp.state_at(4).core.session is None
    assert camp.state_at(5).core.session == 2
    assert camp.state_at(19).core.sessions == 6
    camp.close()
    again = open_campaign(db_path)
    assert again.state().core.sessions == 6
    assert again.state().core.position == 19


def test_unknown_ruleset_and_rounding(tmp_path):
    with pytest.raises(CristalError, match="Unknown ruleset 'd20'; known rulesets: cristal, illergan"):
        init_campaign(tmp_path / "a.db", name="T", ruleset="d20")
    with pytest.raises(CristalError, match="Unknown rounding mode 'ceil'"):
        init_campaign(tmp_path / "b.db", name="T", rounding="ceil")
    assert not (tmp_path / "a.db").exists()


def test_a_composed_ruleset_refuses_two_parts_claiming_one_event():
    import types

    from cristal_events.events import NoteRecorded
    from cristal_events.ruleset import ComposedRuleset

    def part():
        return types.SimpleNamespace(EVENTS=(), DECIDERS={}, EVOLVERS={NoteRecorded: lambda s, e, r: s}, SUMMARIES={},
                                     COMPENSATORS={})

    with pytest.raises(TypeError, match=r"NoteRecorded is claimed by two parts \(EVOLVERS\)"):
        type("Twice", (ComposedRuleset,), {"parts": (part(), part())})


def test_a_read_model_failure_after_the_commit_says_the_command_was_recorded(campaign):
    # the command is in the log: it is returned, never raised as a failure; the warning says so
    from cristal_events.errors import StoreUnavailable

    def failing(camp):
        raise StoreUnavailable("The disk holding x is full; nothing was written.")

    campaign.hooks.append(failing)
    recs = campaign.execute(RecordNote(text="x"))
    assert [r.position for r in recs] == [2]
    assert campaign.warnings == ["Recorded (position 2) but the read models could not follow (The disk holding x "
                                 "is full); run 'cristal rebuild' once the cause is fixed."]
    assert campaign.store.count() == 2


def test_any_exception_of_a_hook_after_the_commit_is_a_warning_not_a_failure(campaign):
    def buggy(camp):
        raise OverflowError("Python int too large to convert to SQLite INTEGER")

    campaign.hooks.append(buggy)
    recs = campaign.execute(RecordNote(text="x"))
    assert recs[-1].position == 2 and campaign.store.count() == 2
    assert campaign.warnings == ["Recorded (position 2) but the read models could not follow (OverflowError: Python "
                                 "int too large to convert to SQLite INTEGER); run 'cristal rebuild' once the cause "
                                 "is fixed."]
    campaign.execute(RecordNote(text="y"))  # a later command still runs
    assert campaign.store.count() == 3 and len(campaign.warnings) == 2
