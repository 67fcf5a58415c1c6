"""Receipts (issue 14, item 7): tamper evidence kept outside the campaign file.

With the append-only triggers dropped, someone holding the file can recompute the whole chain after
an edit, or cut the last session off: every check made on the file alone passes. A receipt the table
kept (``session end``, ``cristal receipt``, the recaps, a JSONL export's trailer) no longer matches.
"""

from __future__ import annotations

import json
import os
import pty
import select
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import child_env

from cristal_events import open_campaign
from cristal_events.cli import cli
from cristal_events.events import NoteRecorded
from cristal_events.receipts import Receipt, ReceiptError, parse_receipt, read_receipts
from cristal_events.store import row_hash

HASH = "[0-9a-f]{64}"


def cristal(db: Path, *args: str):
    return CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=False)


def _ok(db: Path, *args: str) -> str:
    result = cristal(db, *args)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture
def table(tmp_path: Path) -> tuple[Path, list[str]]:
    """A Lois du Cristal campaign of two sessions played through the CLI; the receipts of their ends."""
    db = tmp_path / "table.db"
    _ok(db, "init", "--name", "La Table", "--seed", "9")
    _ok(db, "character", "create", "thor", "--race", "Humain")
    receipts = []
    for number, xp in ((1, "30"), (2, "45")):
        _ok(db, "session", "start", "--title", f"Soirée {number}")
        _ok(db, "xp", "award", "thor", xp, "--reason", f"soirée {number}")
        _ok(db, "note", f"fin de la soirée {number}")
        out = _ok(db, "session", "end").splitlines()
        assert out[0].startswith(f"Session {number} ended at position ")
        assert out[1].startswith("Receipt: ")
        receipts.append(out[1].removeprefix("Receipt: "))
    return db, receipts


def test_session_end_prints_the_receipt_of_its_event(table: tuple[Path, list[str]]) -> None:
    db, receipts = table
    camp = open_campaign(db, readonly=True)
    ends = camp.store.session_ends()
    assert receipts == [f"{p}:{h}" for p, h in (ends[1], ends[2])]
    assert receipts[1] == str(camp.receipt()) and camp.receipt() == Receipt(ends[2][0], ends[2][1])
    camp.close()
    _ok(db, "session", "start")
    ended = json.loads(_ok(db, "session", "end", "--json"))
    assert ended["receipt"] == f"{ended['position']}:{open_campaign(db, readonly=True).store.hash_at(ended['position'])}"


def test_cristal_receipt_prints_the_head_at_any_time(table: tuple[Path, list[str]]) -> None:
    db, receipts = table
    assert _ok(db, "receipt") == f"Receipt: {receipts[1]}\n"
    _ok(db, "note", "après la soirée")
    head = json.loads(_ok(db, "receipt", "--json"))
    camp = open_campaign(db, readonly=True)
    assert head == {"receipt": f"{camp.store.last_position()}:{camp.store.last_hash()}",
                    "position": camp.store.last_position(), "hash": camp.store.last_hash()}
    camp.close()


def test_honest_receipts_verify_given_one_by_one_or_in_a_file(table: tuple[Path, list[str]], tmp_path: Path) -> None:
    db, receipts = table
    _ok(db, "note", "le log continue après les reçus")
    out = _ok(db, "verify", "--receipt", receipts[0], "--receipt", receipts[1])
    assert "2 receipt(s) found in the log" in out
    kept = tmp_path / "recus.txt"
    kept.write_text(f"# les reçus de la table\n\n{receipts[0]}   # soirée 1\n  Reçu : {receipts[1].upper()}\n\n",
                    encoding="utf-8")  # a receipt alone, or the line as printed
    assert read_receipts(kept) == [parse_receipt(r) for r in receipts]
    report = json.loads(_ok(db, "verify", "--receipts", str(kept), "--json"))
    assert report["ok"] and report["receipts"] == {"checked": 2, "problems": []}


def _drop_triggers(conn: sqlite3.Connection) -> None:
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("DROP TRIGGER events_no_delete")


def _rechain(conn: sqlite3.Connection, start: int) -> None:
    """Recompute every hash from ``start`` on, as an attacker holding the file would."""
    prev = conn.execute("SELECT hash FROM events WHERE position = ?", (start - 1,)).fetchone()[0]
    rows = conn.execute("SELECT position, event_id, stream, version, type, schema_version, payload, recorded_at, "
                        "session, actor, causation_id, correlation_id FROM events WHERE position >= ? "
                        "ORDER BY position", (start,)).fetchall()
    for pos, *rest in rows:
        h = row_hash(prev, pos, *rest)
        conn.execute("UPDATE events SET prev_hash = ?, hash = ? WHERE position = ?", (prev, h, pos))
        prev = h


def test_a_chain_recomputed_after_an_edit_passes_verify_but_not_the_receipt(table: tuple[Path, list[str]]) -> None:
    db, receipts = table
    conn = sqlite3.connect(db, isolation_level=None)
    _drop_triggers(conn)
    pos, payload = conn.execute("SELECT position, payload FROM events WHERE type = 'xp.awarded' "
                                "ORDER BY position LIMIT 1").fetchone()
    conn.execute("UPDATE events SET payload = ? WHERE position = ?", (payload.replace('"amount":30', '"amount":3000'), pos))
    _rechain(conn, pos)
    conn.executescript(open_campaign_triggers())  # the triggers put back: nothing looks touched
    conn.close()
    assert cristal(db, "rebuild").exit_code == 0
    plain = cristal(db, "verify")
    assert plain.exit_code == 0, plain.output  # the file alone cannot tell
    first = int(receipts[0].split(":")[0])
    result = cristal(db, "verify", "--receipt", receipts[0], "--receipt", receipts[1])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: the campaign does not verify at position {first}: receipt {receipts[0][:len(str(first)) + 13]}…: "
                                    f"the log holds another hash at position {first} (")
    assert result.stderr.endswith("the log up to there was changed after the receipt was given.\n")


def open_campaign_triggers() -> str:
    return ("CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN "
            "SELECT RAISE(ABORT, 'the event log is append-only: UPDATE is forbidden'); END;"
            "CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN "
            "SELECT RAISE(ABORT, 'the event log is append-only: DELETE is forbidden'); END;")


def test_a_log_cut_before_the_receipt_passes_verify_but_not_the_receipt(table: tuple[Path, list[str]]) -> None:
    db, receipts = table
    conn = sqlite3.connect(db, isolation_level=None)
    _drop_triggers(conn)
    start = conn.execute("SELECT MIN(position) FROM events WHERE session = 2").fetchone()[0]
    conn.execute("DELETE FROM events WHERE position >= ?", (start,))  # the last session never happened
    conn.execute("UPDATE sqlite_sequence SET seq = ? WHERE name = 'events'", (start - 1,))
    conn.executescript(open_campaign_triggers())
    conn.close()
    assert cristal(db, "rebuild").exit_code == 0
    assert cristal(db, "verify").exit_code == 0  # the file alone cannot tell
    cut = int(receipts[1].split(":")[0])
    result = cristal(db, "verify", "--receipt", receipts[0], "--receipt", receipts[1], "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["first_bad_position"] == cut
    assert report["problems"] == [f"receipt {receipts[1][:len(str(cut)) + 13]}…: the log has no event at position "
                                  f"{cut} (it ends at {start - 1}): it was cut after the receipt was given"]
    assert cristal(db, "verify", "--receipt", receipts[0]).exit_code == 0  # what came before is still honoured


@pytest.mark.parametrize("text", ["", "12", "12:abc", "0:" + "a" * 64, "-3:" + "a" * 64, "12:" + "g" * 64,
                                  "١٢:" + "a" * 64, "99999999999999999999:" + "a" * 64, "12:" + "a" * 65])
def test_a_malformed_receipt_is_one_sentence(table: tuple[Path, list[str]], text: str) -> None:
    db, _ = table
    result = cristal(db, "verify", "--receipt", text)
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (f"Error: {text!r} is not a receipt: a receipt is POSITION:HASH, an event's position and "
                             "the 64 hexadecimal digits of its hash, as 'cristal receipt' prints it.\n")
    with pytest.raises(ReceiptError):
        parse_receipt(text)


def test_a_malformed_line_of_a_receipts_file_is_named(table: tuple[Path, list[str]], tmp_path: Path) -> None:
    db, receipts = table
    kept = tmp_path / "recus.txt"
    kept.write_text(f"Reçu : {receipts[0]}\n# commentaire\nreçu {receipts[1]}\n", encoding="utf-8")
    result = cristal(db, "verify", "--receipts", str(kept))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: Line 3 of {kept}: 'reçu ")
    missing = cristal(db, "verify", "--receipts", str(tmp_path / "absent.txt"))
    assert missing.stderr == f"Error: Cannot read the receipts file {tmp_path / 'absent.txt'}: No such file or directory.\n"


def test_the_recaps_show_each_ended_sessions_receipt(table: tuple[Path, list[str]]) -> None:
    db, receipts = table
    _ok(db, "session", "start", "--title", "Soirée ouverte")
    _ok(db, "note", "en cours")
    md = _ok(db, "--lang", "fr", "export", "timeline", "--format", "md")  # the recaps as a French table reads them
    assert [line for line in md.splitlines() if line.startswith("**Reçu")] == [f"**Reçu :** `{r}`" for r in receipts]
    section = md.split("## Session 3")[1]
    assert "Reçu" not in section  # the open session has no receipt yet
    page = _ok(db, "--lang", "fr", "export", "timeline", "--format", "html")
    assert [f'<p class="meta receipt">Reçu : <code>{r}</code></p>' in page for r in receipts] == [True, True]
    assert "Reçu" not in page.split('id="s3"')[1]
    one = _ok(db, "--lang", "fr", "export", "timeline", "--format", "md", "--session", "2")
    assert f"**Reçu :** `{receipts[1]}`" in one and receipts[0] not in one


def test_a_jsonl_export_carries_its_receipt_and_verify_file_checks_kept_receipts(
        table: tuple[Path, list[str]], tmp_path: Path) -> None:
    db, receipts = table
    out = tmp_path / "t.jsonl"
    _ok(db, "export", "timeline", "--format", "jsonl", "-o", str(out))
    lines = out.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[-1]) == {"receipt": receipts[1]}  # the last exported event is session 2's end
    ok = _ok(db, "verify", "--file", str(out), "--receipt", receipts[0])
    assert ok == (f"OK: {len(lines) - 1} events in {out}, the file's hash chain intact; its receipt {receipts[1]} "
                  "names its last event; 1 receipt(s) given found in it.\n")
    assert "trigger" not in ok and "read model" not in ok and "migration" not in ok
    # the file rewritten whole: an edit, the chain recomputed, the trailer renamed; only a kept receipt tells
    events = [json.loads(x) for x in lines[:-1]]
    prev = events[2]["prev_hash"]
    for d in events[2:]:
        if d["type"] == "xp.awarded" and d["payload"]["amount"] == 30:
            d["payload"]["amount"] = 3000
        d["prev_hash"] = prev
        d["hash"] = prev = row_hash(prev, d["position"], d["event_id"], d["stream"], d["version"], d["type"],
                                    d["schema_version"], json.dumps(d["payload"], separators=(",", ":"),
                                                                    ensure_ascii=False),
                                    d["recorded_at"], d["session"], d["actor"], d["causation_id"], d["correlation_id"])
    forged = tmp_path / "forged.jsonl"
    tail = {"receipt": f"{events[-1]['position']}:{events[-1]['hash']}"}
    forged.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in [*events, tail]), encoding="utf-8")
    assert cristal(db, "verify", "--file", str(forged)).exit_code == 0
    caught = cristal(db, "verify", "--file", str(forged), "--receipt", receipts[1])
    assert caught.exit_code == 1
    end = receipts[1].split(":")[0]
    assert caught.stderr.startswith(f"Error: the file does not verify at position {end}: receipt ")
    assert f"the file holds another hash at position {end}" in caught.stderr


def test_verify_file_checks_its_own_trailer(table: tuple[Path, list[str]], tmp_path: Path) -> None:
    db, receipts = table
    out = tmp_path / "t.jsonl"
    _ok(db, "export", "timeline", "--format", "jsonl", "-o", str(out))
    lines = out.read_text(encoding="utf-8").splitlines()
    cut = tmp_path / "cut.jsonl"  # the last event removed, its receipt kept: the trailer no longer names the end
    cut.write_text("\n".join(lines[:-2] + lines[-1:]) + "\n", encoding="utf-8")
    result = cristal(db, "verify", "--file", str(cut))
    assert result.exit_code == 1 and "does not name its last event" in result.stderr
    after = tmp_path / "after.jsonl"
    after.write_text("\n".join(lines + lines[-2:-1]) + "\n", encoding="utf-8")
    result = cristal(db, "verify", "--file", str(after))
    assert result.exit_code == 1 and "follows the receipt line, which must be the file's last" in result.stderr
    bare = tmp_path / "bare.jsonl"  # an export made before receipts: accepted, and said to carry none
    bare.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    assert _ok(db, "verify", "--file", str(bare)).endswith("; it carries no receipt.\n")
    short = cristal(db, "verify", "--file", str(bare), "--receipt", f"{len(lines) + 5}:{'a' * 64}")
    assert short.exit_code == 1 and "the file has no event at position" in short.stderr


# --------------------------------------------------------------------- progress on a terminal (item 14)
@pytest.fixture(scope="module")
def long_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A campaign of 9,000 events (notes appended in bulk) and a closed session."""
    db = tmp_path_factory.mktemp("long") / "long.db"
    _ok(db, "init", "--name", "Longue", "--seed", "1")
    camp = open_campaign(db)
    camp.start_session("Longue")
    camp.store.append("campaign", [NoteRecorded(text=f"note {i}") for i in range(9000)])
    camp.end_session()
    camp.close()
    return db


def _run_on_pty(db: Path, *args: str) -> tuple[int, str, str]:
    """``cristal`` in a child process whose stderr is a pseudo-terminal (stdout a pipe)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-c", "from cristal_events.cli import main; main()", "--db", str(db),
                             *args], stdout=subprocess.PIPE, stderr=slave, env=child_env(), text=True)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    out = proc.stdout.read() if proc.stdout else ""
    return proc.wait(60), out, b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.parametrize("args", [(), ("--rolls",)], ids=["verify", "verify-rolls"])
def test_verify_shows_progress_on_a_terminal_only(long_log: Path, args: tuple[str, ...]) -> None:
    code, out, err = _run_on_pty(long_log, "verify", *args)
    assert code == 0, err
    assert out.startswith("OK: 9003 events")
    assert "verify: chain [" in err and "100% (9003/9003)" in err
    if args:
        assert "verify: dice [" in err
    piped = subprocess.run([sys.executable, "-c", "from cristal_events.cli import main; main()", "--db",
                            str(long_log), "verify", *args], capture_output=True, text=True, env=child_env())
    assert piped.returncode == 0 and piped.stdout == out and piped.stderr == ""
