"""Tamper evidence: a changed byte, a removed or reordered event, an edited JSONL export are all found."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import ledger_ruleset as L
import pytest
from click.testing import CliRunner

from cristal_events import Store, init_campaign, open_campaign
from cristal_events.cli import cli
from cristal_events.exchange import verify_jsonl


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 40-event campaign: awards, spends (two streams each), notes and a session."""
    path = tmp_path_factory.mktemp("tamper") / "orig.db"
    camp = init_campaign(path, name="Témoin", ruleset="ledger", seed=3)
    camp.start_session("Une")
    for i in range(12):
        camp.execute(L.AwardXp(character="thor", amount=10 + i, reason=f"combat {i}"))
        camp.execute(L.SpendXp(character="thor", amount=5, what="technique"))
    camp.end_session()
    assert camp.store.last_position() == 39
    camp.close()
    return path


def _attacker(src: Path, dst: Path) -> sqlite3.Connection:
    """A copy of the campaign opened raw, with the append-only triggers dropped."""
    shutil.copy(src, dst)
    conn = sqlite3.connect(dst, isolation_level=None)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("DROP TRIGGER events_no_delete")
    return conn


def _flip(text: str) -> str:
    """``text`` with one byte changed (its last ASCII letter or digit), still valid JSON."""
    for i in range(len(text) - 1, -1, -1):
        ch = text[i]
        if ch.isascii() and ch.isalnum():
            new = {"7": "8"}.get(ch, "7") if ch.isdigit() else ("q" if ch != "q" else "z")
            return text[:i] + new + text[i + 1:]
    raise AssertionError("nothing to change")


def _verify_cli(path: Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["--db", str(path), "verify"])
    return result.exit_code, result.output


SAMPLE = [1, 2, 3, 4, 17, 25, 38, 39]
COLUMNS = ["payload", "actor", "stream", "recorded_at", "event_id", "type"]


@pytest.mark.parametrize("column", COLUMNS)
@pytest.mark.parametrize("position", SAMPLE, ids=[f"pos{p}" for p in SAMPLE])
def test_one_changed_byte_is_found_at_its_position(original: Path, tmp_path: Path, position: int, column: str) -> None:
    conn = _attacker(original, tmp_path / "t.db")
    value = conn.execute(f"SELECT {column} FROM events WHERE position = ?", (position,)).fetchone()[0]
    conn.execute(f"UPDATE events SET {column} = ? WHERE position = ?", (_flip(value), position))
    conn.close()
    store = Store.open(tmp_path / "t.db", readonly=True)  # the header itself may be the tampered event
    report = store.verify()
    store.close()
    assert not report.ok
    assert report.first_bad_position == position
    code, out = _verify_cli(tmp_path / "t.db")
    assert code == 1
    assert f"at position {position}:" in out


@pytest.mark.parametrize("position", [2, 17, 38], ids=["early", "middle", "second-last"])
def test_a_deleted_event_is_found(original: Path, tmp_path: Path, position: int) -> None:
    conn = _attacker(original, tmp_path / "t.db")
    conn.execute("DELETE FROM events WHERE position = ?", (position,))
    conn.close()
    camp = open_campaign(tmp_path / "t.db", readonly=True)
    report = camp.verify()
    camp.close()
    assert report.first_bad_position == position
    assert "removed" in report.problems[0]


def test_the_deleted_last_event_is_found(original: Path, tmp_path: Path) -> None:
    conn = _attacker(original, tmp_path / "t.db")
    conn.execute("DELETE FROM events WHERE position = 39")
    conn.close()
    camp = open_campaign(tmp_path / "t.db", readonly=True)
    report = camp.verify()
    camp.close()
    assert not report.ok
    assert report.first_bad_position == 39


@pytest.mark.parametrize("a,b", [(2, 3), (10, 20), (38, 39)], ids=["neighbours", "apart", "last-two"])
def test_reordered_events_are_found(original: Path, tmp_path: Path, a: int, b: int) -> None:
    conn = _attacker(original, tmp_path / "t.db")
    cols = [r[1] for r in conn.execute("PRAGMA table_info(events)") if r[1] != "position"]
    row_a = conn.execute(f"SELECT {', '.join(cols)} FROM events WHERE position = ?", (a,)).fetchone()
    row_b = conn.execute(f"SELECT {', '.join(cols)} FROM events WHERE position = ?", (b,)).fetchone()
    conn.execute("DELETE FROM events WHERE position IN (?, ?)", (a, b))
    marks = ", ".join("?" * (len(cols) + 1))
    conn.execute(f"INSERT INTO events (position, {', '.join(cols)}) VALUES ({marks})", (a, *row_b))
    conn.execute(f"INSERT INTO events (position, {', '.join(cols)}) VALUES ({marks})", (b, *row_a))
    conn.close()
    camp = open_campaign(tmp_path / "t.db", readonly=True)
    report = camp.verify()
    camp.close()
    assert report.first_bad_position == a


def _export(original: Path, dst: Path) -> list[str]:
    result = CliRunner().invoke(cli, ["--db", str(original), "log", "--json"])
    assert result.exit_code == 0, result.output
    dst.write_text(result.output, encoding="utf-8")
    return result.output.splitlines()


def test_the_exported_jsonl_verifies_offline(original: Path, tmp_path: Path) -> None:
    _export(original, tmp_path / "x.jsonl")
    report = verify_jsonl(tmp_path / "x.jsonl")
    assert report.ok and report.events == 39
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "absent.db"), "verify", "--file", str(tmp_path / "x.jsonl")])
    assert result.exit_code == 0, result.output


def _edit_payload(lines: list[str], i: int) -> list[str]:
    d = json.loads(lines[i])
    d["payload"] = {**d["payload"], **({"amount": d["payload"]["amount"] + 1} if "amount" in d["payload"] else {"title": "X"})}
    return lines[:i] + [json.dumps(d, ensure_ascii=False)] + lines[i + 1:]


def _edit_field(field: str, value: object):
    def edit(lines: list[str], i: int) -> list[str]:
        d = json.loads(lines[i])
        d[field] = value
        return lines[:i] + [json.dumps(d, ensure_ascii=False)] + lines[i + 1:]
    return edit


EDITS = {
    "payload-value": _edit_payload,
    "actor": _edit_field("actor", "Thor"),
    "recorded_at": _edit_field("recorded_at", "2020-01-01T00:00:00.000000+00:00"),
    "session": _edit_field("session", 9),
    "hash": _edit_field("hash", "0" * 64),
    "deleted-line": lambda lines, i: lines[:i] + lines[i + 1:],
    "swapped-lines": lambda lines, i: lines[:i] + [lines[i + 1], lines[i]] + lines[i + 2:],
    "truncated-line": lambda lines, i: lines[:i] + [lines[i][: len(lines[i]) // 2]] + lines[i + 1:],
    "one-byte": lambda lines, i: lines[:i] + [lines[i].replace('"stream":"', '"stream":"x', 1)] + lines[i + 1:],
}


@pytest.mark.parametrize("edit", list(EDITS), ids=list(EDITS))
@pytest.mark.parametrize("index", [3, 20], ids=["line4", "line21"])
def test_any_edit_of_the_export_fails_verification(original: Path, tmp_path: Path, edit: str, index: int) -> None:
    lines = _export(original, tmp_path / "x.jsonl")
    edited = EDITS[edit](lines, index)
    (tmp_path / "e.jsonl").write_text("\n".join(edited) + "\n", encoding="utf-8")
    report = verify_jsonl(tmp_path / "e.jsonl")
    assert not report.ok
    assert report.first_bad_position == index + 1
    result = CliRunner().invoke(cli, ["verify", "--file", str(tmp_path / "e.jsonl")])
    assert result.exit_code == 1
    assert f"at position {index + 1}" in result.output


def _delete(pos: int):
    return lambda conn: conn.execute("DELETE FROM events WHERE position = ?", (pos,))


def _change(pos: int, column: str = "payload"):
    def change(conn: sqlite3.Connection) -> None:
        value = conn.execute(f"SELECT {column} FROM events WHERE position = ?", (pos,)).fetchone()[0]
        conn.execute(f"UPDATE events SET {column} = ? WHERE position = ?", (_flip(value), pos))
    return change


def _swap(a: int, b: int):
    def swap(conn: sqlite3.Connection) -> None:
        row_a = conn.execute("SELECT hash, prev_hash FROM events WHERE position = ?", (a,)).fetchone()
        row_b = conn.execute("SELECT hash, prev_hash FROM events WHERE position = ?", (b,)).fetchone()
        conn.execute("UPDATE events SET hash = ?, prev_hash = ? WHERE position = ?", (*row_b, a))
        conn.execute("UPDATE events SET hash = ?, prev_hash = ? WHERE position = ?", (*row_a, b))
    return swap


def _blob(pos: int):
    return lambda conn: conn.execute("UPDATE events SET payload = CAST(payload AS BLOB) WHERE position = ?", (pos,))


# with 3 workers the 39 events split after positions 13 and 26: damage on both sides of each seam
DAMAGES = {
    "intact": [],
    "changed-13": [_change(13)], "changed-14": [_change(14, "actor")], "changed-27": [_change(27)],
    "deleted-13": [_delete(13)], "deleted-14": [_delete(14)], "deleted-26": [_delete(26)], "deleted-39": [_delete(39)],
    "deleted-13-and-14": [_delete(13), _delete(14)], "swapped-13-14": [_swap(13, 14)],
    "two-stretches": [_change(30), _delete(5)], "blob-20": [_blob(20)], "blob-and-change": [_blob(2), _change(33)],
}


@pytest.mark.parametrize("damage", list(DAMAGES), ids=list(DAMAGES))
def test_verify_in_worker_processes_reports_what_one_process_reports(original: Path, tmp_path: Path,
                                                                     damage: str, monkeypatch) -> None:
    """A big log's chain is walked by forked workers, one stretch each; the report (first bad
    position, problem, event count) is the one-process walk's, whatever the damage and wherever it
    falls relative to the seams between stretches; a worker that cannot run leaves its stretch
    to the parent."""
    import cristal_events.store as S

    conn = _attacker(original, tmp_path / "t.db")
    for act in DAMAGES[damage]:
        act(conn)
    conn.close()
    forks: list[int] = []
    real_fork = S._fork
    monkeypatch.setattr(S, "_fork", lambda work: forks.append(1) or real_fork(work))
    store = Store.open(tmp_path / "t.db", readonly=True)
    try:
        alone = store.verify(workers=1)
        assert forks == []
        shared = store.verify(workers=3)
        assert len(forks) == 2
        monkeypatch.setattr(S, "_fork", lambda work: None)  # no process could be started
        fallback = store.verify(workers=3)
    finally:
        store.close()
    assert alone == shared == fallback
    assert (alone.first_bad_position is None) == (damage == "intact")  # the attacker dropped the triggers: never ok
    with sqlite3.connect(tmp_path / "t.db") as raw:
        assert alone.events == raw.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    first = {"intact": None, "changed-13": 13, "changed-14": 14, "changed-27": 27, "deleted-13": 13, "deleted-14": 14,
             "deleted-26": 26, "deleted-39": 39, "deleted-13-and-14": 13, "swapped-13-14": 13,
             "two-stretches": 5, "blob-20": 20, "blob-and-change": 2}
    assert alone.first_bad_position == first[damage]  # the first in log order, whichever worker found it


@pytest.mark.parametrize("damage", list(DAMAGES), ids=list(DAMAGES))
def test_verify_in_many_stretches_taken_in_turn_reports_what_one_process_reports(original: Path, tmp_path: Path,
                                                                                 damage: str, monkeypatch) -> None:
    """The stretches handed out in turn (more than the processes: a slower process takes fewer), here
    of 4 events (seams after 4, 8, 13 ...): the same report as one process, whichever process took
    which stretch; a worker that dies after taking stretches leaves them to the parent."""
    import cristal_events.store as S

    conn = _attacker(original, tmp_path / "t.db")
    for act in DAMAGES[damage]:
        act(conn)
    conn.close()
    monkeypatch.setattr(S, "_STRETCH_MIN", 4)
    store = Store.open(tmp_path / "t.db", readonly=True)
    try:
        alone = store.verify(workers=1)
        shared = store.verify(workers=2)  # 9 stretches: the child takes those this process has not
        real_fork = S._fork

        def dying(work):  # the child takes stretches, then dies without answering
            return real_fork(lambda: (work(), os._exit(5)))

        monkeypatch.setattr(S, "_fork", dying)
        fallback = store.verify(workers=2)
    finally:
        store.close()
    assert alone == shared == fallback


# ------------------------------------------------------- attacks only a kept receipt catches (issue 14, item 7)
def _rechain(conn: sqlite3.Connection, start: int) -> None:
    """Every hash from ``start`` on recomputed, as someone holding the file can."""
    from cristal_events.store import row_hash

    prev = conn.execute("SELECT hash FROM events WHERE position = ?", (start - 1,)).fetchone()[0]
    rows = conn.execute("SELECT position, event_id, stream, version, type, schema_version, payload, recorded_at, "
                        "session, actor, causation_id, correlation_id FROM events WHERE position >= ? "
                        "ORDER BY position", (start,)).fetchall()
    for pos, *rest in rows:
        h = row_hash(prev, pos, *rest)
        conn.execute("UPDATE events SET prev_hash = ?, hash = ? WHERE position = ?", (prev, h, pos))
        prev = h


def _every_receipt(path: Path) -> list[str]:
    """A receipt of every position, as a table that ran 'cristal receipt' after each command keeps them."""
    conn = sqlite3.connect(path)
    try:
        return [f"{p}:{h}" for p, h in conn.execute("SELECT position, hash FROM events ORDER BY position")]
    finally:
        conn.close()


def _verify_with(path: Path, receipts: list[str]) -> dict:
    args = [a for r in receipts for a in ("--receipt", r)]
    result = CliRunner().invoke(cli, ["--db", str(path), "verify", "--json", *args])
    return json.loads(result.stdout)


@pytest.mark.parametrize("position", [2, 17, 39])
def test_an_edit_with_the_chain_recomputed_is_caught_only_by_receipts(original: Path, tmp_path: Path,
                                                                       position: int) -> None:
    receipts = _every_receipt(original)
    conn = _attacker(original, tmp_path / "t.db")
    value = conn.execute("SELECT actor FROM events WHERE position = ?", (position,)).fetchone()[0]
    conn.execute("UPDATE events SET actor = ? WHERE position = ?", (value + "x", position))
    _rechain(conn, position)
    conn.close()
    assert Store.open(tmp_path / "t.db").verify().problems == ["the append-only trigger events_no_update is missing",
                                                               "the append-only trigger events_no_delete is missing"]
    report = _verify_with(tmp_path / "t.db", receipts)
    assert not report["ok"] and report["first_bad_position"] == position
    assert report["receipts"]["checked"] == 39 and len(report["receipts"]["problems"]) == 40 - position
    assert report["receipts"]["problems"][0].startswith(f"receipt {position}:")


@pytest.mark.parametrize("keep", [1, 20, 38])
def test_a_log_cut_short_is_caught_only_by_receipts(original: Path, tmp_path: Path, keep: int) -> None:
    receipts = _every_receipt(original)
    conn = _attacker(original, tmp_path / "t.db")
    conn.execute("DELETE FROM events WHERE position > ?", (keep,))
    conn.execute("UPDATE sqlite_sequence SET seq = ? WHERE name = 'events'", (keep,))
    conn.close()
    assert Store.open(tmp_path / "t.db").verify().first_bad_position is None  # the cut itself is invisible
    report = _verify_with(tmp_path / "t.db", receipts)
    assert report["first_bad_position"] == keep + 1
    assert report["receipts"]["problems"][0] == (
        f"receipt {receipts[keep][:len(str(keep + 1)) + 13]}…: the log has no event at position {keep + 1} "
        f"(it ends at {keep}): it was cut after the receipt was given")
