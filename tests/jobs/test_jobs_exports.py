"""Replay and the timeline exports on a small campaign of core events with hostile user text."""

from __future__ import annotations

import csv
import hashlib
import io
import json

import pytest

from cristal_events import init_campaign
from cristal_events.exchange import verify_jsonl
from cristal_events.jobs import import_jsonl
from cristal_events.jobs.exports import csv_cell, md
from cristal_events.service import Campaign, ChangeSetting, RecordNote

HOSTILE = "<script>alert(1)</script>"


@pytest.fixture
def small(db_path):
    """1 created, 2 session start, 3 note, 4 setting, 5 note by '=cmd', 6 session end, 7 note outside."""
    camp = init_campaign(db_path, name="Les <b>Loups</b>", ruleset="cristal", rounding="round", seed=7)
    camp.start_session(title=HOSTILE, in_game_date="3 Floréal")
    camp.execute(RecordNote(text="Thor | York *gras* [lien](x)", topic="récit"))
    camp.execute(ChangeSetting(key="chain_attacks", value=3, reason="règle maison"))
    camp.execute(RecordNote(text="=1+1"), actor="=HYPERLINK(\"http://x\")")
    camp.end_session()
    camp.execute(RecordNote(text="Entre deux sessions"))
    camp.close()
    return db_path


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.french
def test_replay_tells_each_event_with_its_state_change_and_writes_nothing(small, run):
    before = _digest(small)
    result = run("replay")
    assert result.exit_code == 0
    assert result.output.splitlines() == [
        "── Hors session ──",
        "#1     GM       Campagne « Les <b>Loups</b> » créée (règles cristal, arrondi round)",
        f"── Session 1 : {HOSTILE} (3 Floréal) ──",
        f"#2     GM       Session 1 commence : {HOSTILE} — 3 Floréal",
        "#3     GM       Note du MJ (récit) : Thor | York *gras* [lien](x)",
        "#4     GM       Réglage chain_attacks = 3 : règle maison",
        "        settings.chain_attacks : 2 → 3",
        '#5     =HYPERLINK("http://x") Note du MJ : =1+1',
        "#6     GM       Session 1 terminée",
        "── Hors session ──",
        "#7     GM       Note du MJ : Entre deux sessions",
    ]
    assert _digest(small) == before
    assert Campaign.open(small, readonly=True).store.count() == 7


def test_replay_ranges_and_json_records(small, run):
    lines = run("replay", "--session", "1", "--from", "4", "--until", "5", "--json").output.splitlines()
    records = [json.loads(x) for x in lines]
    assert [(r["position"], r["session"], r["in_game_date"], r["type"]) for r in records] == [
        (4, 1, "3 Floréal", "campaign.setting_changed"), (5, 1, "3 Floréal", "note.recorded")]
    assert records[0]["changes"] == [{"path": ["settings", "chain_attacks"], "before": 2, "after": 3}]
    assert records[1]["payload"] == {"type": "note.recorded", "text": "=1+1", "topic": "", "private": False}


@pytest.mark.french
def test_replay_step_waits_between_events_and_q_stops(small, run):
    out = run("replay", "--until", "3", "--step", input="\nq\n").output.splitlines()
    assert [x for x in out if x.startswith("#")] == [
        "#1     GM       Campagne « Les <b>Loups</b> » créée (règles cristal, arrondi round)",
        f"#2     GM       Session 1 commence : {HOSTILE} — 3 Floréal"]


@pytest.mark.parametrize("args, message", [
    (["--session", "9"], "Error: Session 9 has no events in this campaign.\n"),
    (["--from", "0"], "Error: --from must be a position of at least 1, not 0.\n"),
    (["--from", "50"], "Error: No event between positions 50 and 7.\n"),
    (["--character", "ghost"], "Error: No character 'ghost' in this campaign.\n"),
], ids=["unknown-session", "from-zero", "from-past-end", "unknown-character"])
def test_replay_refuses_bad_ranges_in_one_sentence(small, run, args, message):
    result = run("replay", *args)
    assert (result.exit_code, result.output) == (1, message)


def test_jsonl_export_verifies_offline_and_imports_into_a_new_campaign(small, run, tmp_path):
    out = tmp_path / "t.jsonl"
    assert run("--lang", "fr", "export", "timeline", "--format", "jsonl", "-o", str(out)).exit_code == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [ln["position"] for ln in lines[:-1]] == [1, 2, 3, 4, 5, 6, 7]
    assert lines[-1] == {"receipt": f"7:{lines[-2]['hash']}"}  # the export's receipt trailer
    assert lines[3]["summary"] == "Réglage chain_attacks = 3 : règle maison"
    assert lines[3]["in_game_date"] == "3 Floréal"
    assert verify_jsonl(out).ok
    copy = tmp_path / "copy.db"
    result = run("import", str(out), str(copy))
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Imported 7 events into ")
    a, b = Campaign.open(small, readonly=True), Campaign.open(copy, readonly=True)
    assert [(r.hash, r.payload) for r in a.store.read_all()] == [(r.hash, r.payload) for r in b.store.read_all()]
    assert b.verify().ok


def test_session_export_verifies_but_does_not_import(small, run, tmp_path):
    out = tmp_path / "s1.jsonl"
    run("export", "timeline", "--format", "jsonl", "--session", "1", "-o", str(out))
    assert verify_jsonl(out).ok and verify_jsonl(out).events == 5
    result = run("import", str(out), str(tmp_path / "copy.db"))
    assert (result.exit_code, result.output) == (1, f"Error: {out} does not start with the campaign's first event "
                                                     "(position 1, campaign.created); export the whole timeline to import it.\n")
    assert not (tmp_path / "copy.db").exists()


def test_an_edited_export_is_refused_by_import(small, run, tmp_path):
    out = tmp_path / "t.jsonl"
    run("export", "timeline", "--format", "jsonl", "-o", str(out))
    out.write_text(out.read_text().replace("Entre deux sessions", "Entre trois sessions"))
    result = run("import", str(out), str(tmp_path / "copy.db"))
    assert (result.exit_code, result.output) == (
        1, f"Error: Line 7 of {out}: the file does not verify: position 7 was altered (hash mismatch); "
           "nothing was imported.\n")
    assert not (tmp_path / "copy.db").exists()


def test_import_validates_every_payload_with_the_rules(small, tmp_path):
    """A line whose hash is right but whose payload the rules refuse: the error names the line."""
    from cristal_events.exchange import payload_text
    from cristal_events.store import row_hash

    out = tmp_path / "t.jsonl"
    camp = Campaign.open(small, readonly=True)
    with open(out, "w") as fh:
        from cristal_events.jobs.exports import write_jsonl
        from cristal_events.jobs.walk import walk
        write_jsonl(walk(camp), fh)
    lines = [json.loads(x) for x in out.read_text().splitlines()][:-1]  # the receipt trailer dropped
    prev = lines[1]["hash"]
    for d in lines[2:]:  # rewrite the chain after breaking the payload of position 3 (a note with no text)
        if d["position"] == 3:
            d["payload"] = {"type": "note.recorded", "topic": "x"}
        d["prev_hash"] = prev
        d["hash"] = row_hash(prev, d["position"], d["event_id"], d["stream"], d["version"], d["type"],
                             d["schema_version"], payload_text(d["payload"]), d["recorded_at"], d["session"],
                             d["actor"], d["causation_id"], d["correlation_id"])
        prev = d["hash"]
    out.write_text("".join(json.dumps(d) + "\n" for d in lines))
    with pytest.raises(Exception) as err:
        import_jsonl(out, tmp_path / "copy.db")
    assert str(err.value) == (f"Line 3 of {out}: Invalid 'note.recorded' payload: Object missing required field "
                              "`text`; nothing was imported.")
    assert not (tmp_path / "copy.db").exists()


@pytest.mark.french
def test_csv_is_flat_and_neutralises_formula_cells(small, run):
    rows = list(csv.reader(io.StringIO(run("export", "timeline", "--format", "csv").output)))
    assert rows[0] == ["position", "recorded_at", "session", "in_game_date", "actor", "stream", "type", "summary",
                       "characters", "changes", "hash"]
    assert len(rows) == 8
    assert rows[5][4] == "'=HYPERLINK(\"http://x\")"
    assert rows[4][9] == "settings.chain_attacks : 2 → 3"
    # a tab or CR is shown visibly (\t, \r), so it can neither start a formula nor split the cell
    assert [csv_cell(v) for v in ("=1", "+1", "-1", "@A", "\tx", "\r=x", "ok", 5, None)] == [
        "'=1", "'+1", "'-1", "'@A", "\\tx", "\\r=x", "ok", 5, ""]


@pytest.mark.french
def test_markdown_recap_escapes_user_text(small, run):
    out = run("export", "timeline", "--format", "md").output
    assert out.splitlines() == [
        "# Les &lt;b&gt;Loups&lt;/b&gt;",
        "",
        "*Les Lois du Cristal — 7 événements — arrondi : round*",
        "",
        "## Hors session",
        "",
        "- `#1` Campagne « Les &lt;b&gt;Loups&lt;/b&gt; » créée (règles cristal, arrondi round)",
        "",
        "## Session 1 : &lt;script&gt;alert(1)&lt;/script&gt; — 3 Floréal",
        "",
        f"**Reçu :** `6:{Campaign.open(small, readonly=True).store.hash_at(6)}`",  # the session's end
        "",
        "- `#2` Session 1 commence : &lt;script&gt;alert(1)&lt;/script&gt; — 3 Floréal",
        "- `#3` Note du MJ (récit) : Thor \\| York \\*gras\\* \\[lien\\](x)",
        "- `#4` Réglage chain\\_attacks = 3 : règle maison",
        "- `#5` Note du MJ : =1+1",
        "- `#6` Session 1 terminée",
        "",
        "## Hors session",
        "",
        "- `#7` Note du MJ : Entre deux sessions",
    ]
    # a newline inside a value is shown (⏎), not turned into a space nor a new line; ESC is \x1b, escaped
    assert md("a\nb") == "a⏎b" and md("a\x1b[2J|") == "a\\\\x1b\\[2J\\|"


def test_html_is_self_contained_and_escapes_user_text(small, run, tmp_path):
    out = tmp_path / "site"
    result = run("export", "timeline", "--format", "html", "-o", str(out))
    assert result.exit_code == 0
    page = "".join(p.read_text() for p in sorted(out.glob("*.html")))
    assert run("export", "timeline", "--format", "html").output.count("<script") == 0  # the one page too
    assert "<script" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "Les &lt;b&gt;Loups&lt;/b&gt;" in page
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "").replace('&quot;http://x&quot;', "")
    assert "Content-Security-Policy" in page
    assert '<li id="e4" data-type="campaign.setting_changed">' in page


def test_import_fills_its_new_file_through_the_rollback_journal(small, run, tmp_path, monkeypatch):
    """``cristal import`` builds the campaign in a new file nobody else knows of, so its bulk import
    takes the journal lever (``Store._rollback_journal``) as a direct ``import_rows`` does; the file
    it publishes is in WAL mode again and holds the same chain."""
    import contextlib
    import sqlite3

    import cristal_events.store as S

    monkeypatch.setattr(S, "ROLLBACK_JOURNAL_MIN", 5)  # 10,000 rows in real use; the sample has 7
    modes: list[str] = []
    lever = S.Store._rollback_journal

    @contextlib.contextmanager
    def spied(self):
        with lever(self):
            modes.append(self.conn.execute("PRAGMA journal_mode").fetchone()[0])
            yield

    monkeypatch.setattr(S.Store, "_rollback_journal", spied)
    out, copy = tmp_path / "t.jsonl", tmp_path / "copy.db"
    assert run("export", "timeline", "--format", "jsonl", "-o", str(out)).exit_code == 0
    result = run("import", str(out), str(copy))
    assert result.exit_code == 0, result.output
    assert modes == ["delete"]  # the import's pages written once, into the file
    conn = sqlite3.connect(copy)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()
    a, b = Campaign.open(small, readonly=True), Campaign.open(copy, readonly=True)
    assert [r.hash for r in a.store.read_all()] == [r.hash for r in b.store.read_all()]
    assert b.verify().ok
