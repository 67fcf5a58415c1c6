"""The timeline stores no sentence (issue 20, the rebuild's lever "a read model need not store what can be
computed when it is read"): its rows are where each event stands in the log, its readable line is told
when it is read (``projections.timeline.summary``) in the reader's language, the same text as version 1
stored in French; a campaign whose timeline is still version 1 is rebuilt by its next catch-up."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from cristal_events.projections import runner, timeline

from cristal_events import i18n, projections
from cristal_events.cli import cli
from cristal_events.cli.script import load
from cristal_events.cli.script import run as run_script
from cristal_events.service import Campaign, RecordNote

COMPAGNIE = Path(__file__).resolve().parents[2] / "sample_campaigns" / "compagnie_du_cristal.toml"
V1_COLUMNS = ("position", "recorded_at", "session", "stream", "type", "actor", "summary")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    db = tmp_path_factory.mktemp("timeline") / "compagnie.db"
    run_script(load(COMPAGNIE), db)
    return db


@pytest.fixture
def copy(built, tmp_path):
    target = tmp_path / "copy.db"
    shutil.copy(built, target)
    return target


def version_1_rows(camp):
    """What version 1 of the timeline stored: its row per event, the summary told in French whatever the
    language of the command (its ``appended``, as it was)."""
    rows = []
    for rec in camp.store.read_all(hashes=False):
        with i18n.use("fr"):
            told = camp.summarizer(type(rec.event))(rec)
        rows.append((rec.position, rec.recorded_at, rec.session, rec.stream, rec.type, rec.actor, told))
    return rows


def as_version_1(camp):
    """Turn the campaign's timeline back into version 1's table and checkpoint (an older engine's file)."""
    conn = camp.store.conn
    conn.execute("DROP TABLE timeline")
    conn.execute("CREATE TABLE timeline (position INTEGER PRIMARY KEY, recorded_at TEXT, session INTEGER, "
                 "stream TEXT, type TEXT, actor TEXT, summary TEXT)")
    conn.executemany("INSERT INTO timeline VALUES (?, ?, ?, ?, ?, ?, ?)", version_1_rows(camp))
    conn.execute("UPDATE projection_checkpoints SET version = 1 WHERE name = 'timeline'")
    conn.commit()


def columns(camp):
    return [r[1] for r in camp.store.conn.execute("PRAGMA table_info(timeline)")]


def test_the_timeline_stores_where_each_event_stands_and_no_sentence(built):
    camp = Campaign.open(built)
    try:
        assert columns(camp) == ["position", "recorded_at", "session", "stream", "type", "actor"]
        assert camp.store.checkpoint("timeline")[:2] == (timeline.Timeline.version, camp.store.last_position())
        stored = camp.store.conn.execute("SELECT * FROM timeline ORDER BY position").fetchall()
        assert stored == [row[:6] for row in version_1_rows(camp)]
        assert runner.verify(camp) == []
    finally:
        camp.close()


def test_the_summary_told_when_read_is_the_french_one_version_1_stored_and_speaks_english_too(built):
    camp = Campaign.open(built)
    try:
        recs = list(camp.store.read_all())
        with i18n.use("fr"):
            french = [timeline.summary(camp, rec) for rec in recs]
        with i18n.use("en"):
            english = [timeline.summary(camp, rec) for rec in recs]
        assert french == [row[6] for row in version_1_rows(camp)]
        starts = [i for i, rec in enumerate(recs) if rec.type == "session.started"]
        assert french[starts[0]].startswith("Session 1 commence : ")
        assert english[starts[0]].startswith("Session 1 begins: ")
        assert french != english
    finally:
        camp.close()


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_log_and_its_json_show_the_summary_in_the_readers_language(built, lang):
    camp = Campaign.open(built)
    try:
        with i18n.use(lang):
            want = [timeline.summary(camp, rec) for rec in camp.store.read_all()]
    finally:
        camp.close()
    runner_ = CliRunner()
    lines = runner_.invoke(cli, ["--lang", lang, "--db", str(built), "log"]).output.splitlines()
    assert len(lines) == len(want) and all(line.endswith(" " + told) for line, told in zip(lines, want))
    out = runner_.invoke(cli, ["--lang", lang, "--db", str(built), "log", "--json"]).output.splitlines()
    assert [json.loads(line)["summary"] for line in out] == want


def test_a_version_1_timeline_is_rebuilt_by_the_next_catch_up(copy):
    camp = Campaign.open(copy)
    as_version_1(camp)
    assert "summary" in columns(camp) and camp.store.checkpoint("timeline")[0] == 1
    assert runner.verify(camp) == ["read model timeline is behind the log (run 'cristal rebuild')"]
    counts = runner.catch_up(camp)
    assert counts["timeline"] == camp.store.last_position()  # folded again from the first event
    assert counts["sessions"] == 0  # the other read models were current: left as they were
    assert columns(camp) == ["position", "recorded_at", "session", "stream", "type", "actor"]
    assert camp.store.checkpoint("timeline")[:2] == (2, camp.store.last_position())
    assert runner.verify(camp) == []
    camp.close()


def test_a_write_command_on_an_older_campaign_rebuilds_its_timeline(copy):
    camp = Campaign.open(copy)
    as_version_1(camp)
    last = camp.store.last_position()
    camp.close()
    done = CliRunner().invoke(cli, ["--db", str(copy), "note", "Le pendu ferme tard"])
    assert done.exit_code == 0, done.output
    camp = projections.attach(Campaign.open(copy))
    try:
        assert columns(camp) == ["position", "recorded_at", "session", "stream", "type", "actor"]
        assert camp.store.conn.execute("SELECT count(*), max(position) FROM timeline").fetchone() == (last + 1, last + 1)
        assert camp.store.checkpoint("timeline")[:2] == (2, last + 1)
        assert runner.verify(camp) == []
    finally:
        camp.close()


def test_the_timeline_rows_are_copied_from_the_log_on_both_backends_never_folded(backend, monkeypatch):
    camp = projections.attach(Campaign.create(backend, name="T", ruleset="cristal", seed=5))
    try:
        camp.start_session("Arrivée")
        camp.execute(RecordNote(text="Thor arrive"))
        camp.end_session()
        folded = []
        monkeypatch.setattr(timeline.Timeline, "appended", lambda self, state, rec: folded.append(rec.position) or {})
        counts = runner.rebuild(camp)
        camp.execute(RecordNote(text="Après la session"))  # a command's catch-up copies its one event
        assert folded == []
        assert counts["timeline"] == camp.store.last_position() - 1
        stored = camp.store.table_rows("timeline", list(timeline.Timeline.append_tables["timeline"].columns),
                                       ["position"])
        assert stored == [(r.position, r.recorded_at, r.session, r.stream, r.type, r.actor)
                          for r in camp.store.read_all(hashes=False)]
        monkeypatch.undo()
        assert runner.verify(camp) == []  # the rows Timeline.appended folds, in memory
    finally:
        camp.close()
