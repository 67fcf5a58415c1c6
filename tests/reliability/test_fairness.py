"""Verifiable dice: every engine die of a closed session re-derives from the revealed seed, the players'
salt and the session's die counter; fudged or forged dice are found; the secret is never in the file."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import random
import sqlite3
import stat
from pathlib import Path

import ledger_ruleset as L
import msgspec
import pytest
from click.testing import CliRunner

from cristal_events import init_campaign, open_campaign
from cristal_events.cli import cli
from cristal_events.errors import RuleError
from cristal_events.events import SessionEnded, SessionStarted
from cristal_events.fairness import stored_rolls, verify_rolls
from cristal_events.rolls import Roll
from cristal_events.ruleset import derive_seed
from cristal_events.service import RecordNote, secrets_path

SECRET = "ab" * 32


@pytest.fixture
def fixed_secret(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr("cristal_events.service._random_hex", lambda n=32: SECRET[: 2 * n])
    return SECRET


def _independent_face(secret: str, salt: str, n: int, sides: int) -> int:
    """docs/verifiable-dice.md written out again, with the standard library only."""
    span = 2**256
    k = 0
    while True:
        msg = f"{salt}:{n}" + (f":{k}" if k else "")
        v = int.from_bytes(hmac.new(secret.encode(), msg.encode(), hashlib.sha256).digest(), "big")
        if v < span - span % sides:
            return v % sides + 1
        k += 1


def _records(path: Path) -> list[tuple[int, dict]]:
    conn = sqlite3.connect(path)
    try:
        return [(p, json.loads(payload)) for p, payload in
                conn.execute("SELECT position, payload FROM events WHERE type = 'dice.rolled' ORDER BY position")]
    finally:
        conn.close()


def _faces(payload: dict) -> list[int]:
    return [d["face"] for r in payload["rolls"] for d in r["dice"]]


def _played(path: Path, *, seed: int | None = None, salt: str = "", notes: int = 0) -> None:
    camp = init_campaign(path, name="Dés", ruleset="ledger", seed=seed)
    camp.start_session("Une", salt=salt)
    for i in range(notes):
        camp.execute(RecordNote(text=f"note {i}"))
    camp.execute(L.RollDice(character="thor", exprs=["1d20+5", "2d6"]))
    camp.execute(L.AwardXp(character="thor", amount=10))
    camp.execute(L.RollDice(character="thor", exprs=["3d6+2"]), faces=[6, 6, 6])  # entered at the table
    camp.execute(L.RollDice(character="york", exprs=["1d100", "[2d6+2]*2"]))
    camp.end_session()
    camp.close()


def _attacker(path: Path) -> sqlite3.Connection:
    """Someone holding the file, triggers dropped (a chain they could recompute is not what is tested here)."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER IF EXISTS events_no_update")
    conn.execute("DROP TRIGGER IF EXISTS events_no_delete")
    return conn


def _report(path: Path):
    camp = open_campaign(path, readonly=True)
    try:
        return verify_rolls(camp)
    finally:
        camp.close()


# ------------------------------------------------------------------------------------ the honest table

def test_engine_dice_re_derive_from_the_revealed_seed_the_salt_and_the_counter(tmp_path: Path, fixed_secret: str) -> None:
    _played(tmp_path / "d.db", salt="les joueurs")
    records = _records(tmp_path / "d.db")
    engine = [(p, r) for p, r in records if r["scheme"] == "session"]
    assert [r["first"] for _, r in engine] == [0, 3]  # the counter runs on; the entered faces do not use it
    sides = [[20, 6, 6], [100, 6, 6]]
    for (_, rec), s in zip(engine, sides):
        assert _faces(rec) == [_independent_face(fixed_secret, "les joueurs", rec["first"] + i, n)
                               for i, n in enumerate(s)]
    assert [r["scheme"] for _, r in records] == ["session", "entered", "session"]
    report = _report(tmp_path / "d.db")
    assert report.ok, report.problems
    assert (report.sessions, report.checked, report.entered, report.pending, report.legacy) == (1, 4, 1, 0, 0)


def test_a_note_or_any_event_without_dice_cannot_shift_the_engine_dice(tmp_path: Path, fixed_secret: str) -> None:
    _played(tmp_path / "a.db")
    _played(tmp_path / "b.db", notes=5)  # the GM pads with notes before rolling
    a, b = _records(tmp_path / "a.db"), _records(tmp_path / "b.db")
    assert [p for p, _ in b] == [p + 5 for p, _ in a]
    assert [_faces(r) for _, r in a] == [_faces(r) for _, r in b]


def test_the_players_salt_changes_every_engine_die(tmp_path: Path, fixed_secret: str) -> None:
    _played(tmp_path / "a.db")
    _played(tmp_path / "b.db", salt="sel")
    assert _faces(_records(tmp_path / "a.db")[0][1]) != _faces(_records(tmp_path / "b.db")[0][1])
    assert _report(tmp_path / "b.db").ok


def test_the_commitment_is_the_hash_of_the_revealed_seed(tmp_path: Path, fixed_secret: str) -> None:
    _played(tmp_path / "d.db")
    camp = open_campaign(tmp_path / "d.db")
    started = next(camp.store.read_all(type="session.started")).event
    ended = next(camp.store.read_all(type="session.ended")).event
    camp.close()
    assert started.seed_commitment == hashlib.sha256(fixed_secret.encode()).hexdigest()
    assert (ended.seed_reveal, ended.engine_dice) == (fixed_secret, 6)


def test_session_start_shows_the_commitment_and_session_salt_comes_before_the_first_die(tmp_path: Path) -> None:
    db = str(tmp_path / "d.db")
    runner = CliRunner()
    init_campaign(db, name="Dés", ruleset="ledger").close()  # (init's --ruleset choices are the built-in ones)
    started = runner.invoke(cli, ["--db", db, "session", "start", "--salt", "dragon", "--json"])
    assert started.exit_code == 0, started.output
    shown = json.loads(started.output)
    salted = runner.invoke(cli, ["--db", db, "session", "salt", "sept pommes"])
    assert salted.output == "Salt added to session 1 at position 3.\n"
    camp = open_campaign(db)
    camp.execute(L.RollDice(character="thor", exprs=["1d20"]))
    with pytest.raises(RuleError, match="^Session 1 has already rolled 1 engine die; a salt must come before the first one.$"):
        camp.salt_session("trop tard")
    secret = camp.session_secret(1)
    camp.close()
    face = _faces(_records(tmp_path / "d.db")[0][1])
    assert face == [_independent_face(secret, "dragon\nsept pommes", 0, 20)]
    ended = runner.invoke(cli, ["--db", db, "session", "end", "--json"])
    assert hashlib.sha256(json.loads(ended.output)["seed_reveal"].encode()).hexdigest() == shown["seed_commitment"]
    text = runner.invoke(cli, ["--db", db, "session", "start"]).output.splitlines()
    assert text[1].startswith("Dice commitment: ") and len(text[1].split()[-1]) == 64
    assert runner.invoke(cli, ["--db", db, "verify", "--rolls"]).exit_code == 0


def test_rolls_of_an_open_session_are_pending_and_public_seed_rolls_are_checked(tmp_path: Path) -> None:
    camp = init_campaign(tmp_path / "d.db", name="Dés", ruleset="ledger", seed=11)
    camp.execute(L.RollDice(character="thor", exprs=["1d6"]))  # outside sessions: the public campaign seed
    camp.start_session()
    camp.execute(L.RollDice(character="thor", exprs=["1d6", "1d8"]))
    camp.end_session()
    camp.start_session()
    camp.execute(L.RollDice(character="thor", exprs=["1d6", "1d8"]))
    camp.execute(L.RollDice(character="thor", exprs=["2d4"]))
    camp.end_session()
    camp.execute(L.RollDice(character="thor", exprs=["2d4"]))  # outside sessions again: the public counter is at 1
    camp.start_session()
    camp.execute(L.RollDice(character="york", exprs=["1d6"]))
    report = verify_rolls(camp)
    camp.close()
    assert report.ok, report.problems
    assert (report.checked, report.pending, report.unverifiable, report.sessions) == (7, 1, 0, 2)
    public = [r for _, r in _records(tmp_path / "d.db") if r["scheme"] == "seed"]
    assert [r["first"] for r in public] == [0, 1]
    assert _faces(public[1]) == [_independent_face("campaign-seed:11", "", 1 + i, 4) for i in range(2)]


def test_rolls_outside_sessions_without_a_seed_are_unverifiable(tmp_path: Path) -> None:
    camp = init_campaign(tmp_path / "d.db", name="Dés", ruleset="ledger")
    camp.execute(L.RollDice(character="thor", exprs=["1d6"]))
    report = verify_rolls(camp)
    camp.close()
    assert report.ok and report.unverifiable == 1 and report.checked == 0


def test_cli_verify_rolls_reports_the_counts(tmp_path: Path) -> None:
    _played(tmp_path / "d.db")
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "d.db"), "verify", "--rolls"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1] == (
        "OK: 4 engine rolls of 1 closed session(s) re-derived from their revealed seeds; "
        "1 entered at the table, 0 in an open session, 0 without a public seed.")
    js = CliRunner().invoke(cli, ["--db", str(tmp_path / "d.db"), "verify", "--rolls", "--json"])
    assert msgspec.json.decode(js.output)["rolls"]["checked"] == 4


def test_rolls_and_file_cannot_be_combined(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["verify", "--rolls", "--file", str(tmp_path / "x.jsonl")])
    assert result.exit_code == 1
    assert result.output == "Error: --rolls checks a campaign file; it cannot be combined with --file.\n"


# ------------------------------------------------------------------------------ a dishonest engine

def test_a_dishonest_engine_is_reported_at_its_position(tmp_path: Path, fixed_secret: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    camp = init_campaign(tmp_path / "d.db", name="Dés", ruleset="ledger")
    camp.start_session("Une")
    honest = _independent_face(fixed_secret, "", 0, 20)
    fudged = 20 if honest != 20 else 19
    with monkeypatch.context() as m:  # the engine hands out the face it likes, and records it, chained
        m.setattr("cristal_events.dice.engine_face", lambda key, salt, n, sides: fudged)
        recs = camp.execute(L.RollDice(character="thor", exprs=["1d20"]))
    camp.end_session()
    report = verify_rolls(camp)
    camp.close()
    assert recs[-1].type == "dice.rolled" and recs[-1].position == 4
    assert not report.ok
    assert [(m.position, m.stored, m.derived) for m in report.mismatches] == [(4, [fudged], [honest])]
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "d.db"), "verify", "--rolls"])
    assert result.exit_code == 1
    assert result.output.strip().endswith(
        "Error: the campaign does not verify at position 4: dice: position 4 (1d20): the faces differ from those the revealed seed gives.")


# ------------------------------------------------------------------------ forged files, checked anyway

def _set(conn: sqlite3.Connection, position: int, path: str, value: object) -> None:
    conn.execute("UPDATE events SET payload = json_set(payload, ?, json(?)) WHERE position = ?",
                 (path, json.dumps(value), position))


def _forge_face_in_record_and_payload(conn, recs, path):
    (p, r), roll_pos = recs[0], recs[0][0] - 1
    face = r["rolls"][0]["dice"][0]["face"]
    other = 1 if face != 1 else 2
    _set(conn, p, "$.rolls[0].dice[0].face", other)
    _set(conn, roll_pos, "$.rolls[0].faces[0]", other)
    return "position 4 (1d20+5): the faces differ from those the revealed seed gives"


def _forge_face_in_payload_only(conn, recs, path):
    p = recs[0][0]
    _set(conn, p - 1, "$.rolls[1].faces", [7, 7])  # a 2d6 cannot show 7: no such dice in the record
    _set(conn, p - 1, "$.rolls[1].total", 14)
    return "position 3 (2d6): the stored faces [7, 7] are not dice of the command's record"


def _remove_a_record(conn, recs, path):
    conn.execute("DELETE FROM events WHERE position = ?", (recs[0][0],))
    return "position 3: 2 engine roll(s) stored without the command's dice record (a record was removed)"


def _remove_the_last_record(conn, recs, path):
    last = recs[-1][0]
    conn.execute("DELETE FROM events WHERE position = ?", (last,))
    return "session 1 ended after 6 engine dice but its records hold 3 (a record was removed or added)"


def _move_faces_between_commands(conn, recs, path):
    (a, ra), (b, rb) = recs[0], recs[-1]
    # the forgery is seen only when the two rolls' faces differ (the fixed secret makes them differ)
    assert [d["face"] for d in ra["rolls"][1]["dice"]] != [d["face"] for d in rb["rolls"][1]["dice"]]
    _set(conn, a, "$.rolls[1]", rb["rolls"][1])
    _set(conn, b, "$.rolls[1]", ra["rolls"][1])
    return "the faces differ from those the revealed seed gives"


def _wrong_reveal(conn, recs, path):
    conn.execute("UPDATE events SET payload = json_set(payload, '$.seed_reveal', 'cd') WHERE type = 'session.ended'")
    return "session 1: the revealed seed does not match the commitment made at its start"


def _salt_changed(conn, recs, path):
    conn.execute("UPDATE events SET payload = json_set(payload, '$.salt', 'autre') WHERE type = 'session.started'")
    return "the faces differ from those the revealed seed gives"


def _counter_changed(conn, recs, path):
    _set(conn, recs[-1][0], "$.first", 0)
    return "the record starts at engine die n° 0 of session 1 but n° 3 was next"


def _face_relabelled_entered(conn, recs, path):
    _set(conn, recs[0][0], "$.rolls[0].dice[0].source", "entered")
    return "the dice record's faces do not all come from its engine"


def _total_changed(conn, recs, path):
    p, r = recs[0]
    _set(conn, p, "$.rolls[0].total", r["rolls"][0]["total"] + 3)
    return f"the total {r['rolls'][0]['total'] + 3} should be {r['rolls'][0]['total']}"


FORGERIES = {
    "face-changed": _forge_face_in_record_and_payload, "payload-face-changed": _forge_face_in_payload_only,
    "record-removed": _remove_a_record, "last-record-removed": _remove_the_last_record,
    "faces-moved-between-commands": _move_faces_between_commands, "wrong-reveal": _wrong_reveal,
    "salt-changed": _salt_changed, "counter-changed": _counter_changed,
    "face-relabelled-entered": _face_relabelled_entered, "total-changed": _total_changed,
}


@pytest.mark.parametrize("forge", FORGERIES.values(), ids=FORGERIES.keys())
def test_a_forged_file_does_not_verify(tmp_path: Path, forge, fixed_secret: str) -> None:
    # a fixed session secret: with a fresh one, two rolls could show the same faces by chance (1 in 36
    # for a 2d6) and a forgery that swaps them would change nothing
    path = tmp_path / "d.db"
    _played(path, salt="sel")
    assert _report(path).ok
    recs = [(p, r) for p, r in _records(path) if r["scheme"] == "session"]
    conn = _attacker(path)
    expected = forge(conn, recs, path)
    conn.close()
    report = _report(path)
    assert not report.ok
    assert any(expected in p for p in report.problems), report.problems


# ---------------------------------------------------------------------------------- the secret's place

def test_the_open_sessions_secret_is_not_in_the_campaign_file(tmp_path: Path) -> None:
    path = tmp_path / "d.db"
    camp = init_campaign(path, name="Dés", ruleset="ledger")
    camp.start_session()
    camp.execute(L.RollDice(character="thor", exprs=["1d20"]))
    secret = camp.session_secret(1)
    assert secret and len(secret) == 64
    side = secrets_path(path)
    assert side == tmp_path / "d.db.secrets"
    assert stat.S_IMODE(side.stat().st_mode) == 0o600
    stored = b"".join(Path(str(path) + s).read_bytes() for s in ("", "-wal") if Path(str(path) + s).exists())
    assert secret.encode() not in stored  # what Datasette, a backup or a copy of the file would serve
    assert camp.store.conn.execute("SELECT COUNT(*) FROM session_secrets").fetchone()[0] == 0
    camp.end_session()
    assert not side.exists()  # revealed in the log now: nothing secret is kept
    camp.close()
    assert _report(path).ok


def test_a_missing_secret_refuses_engine_dice_and_leaves_the_session_unverifiable(tmp_path: Path) -> None:
    path = tmp_path / "d.db"
    camp = init_campaign(path, name="Dés", ruleset="ledger")
    camp.start_session()
    camp.execute(L.RollDice(character="thor", exprs=["1d20"]))
    camp.close()
    secrets_path(path).unlink()
    camp = open_campaign(path)
    before = camp.store.last_position()
    with pytest.raises(RuleError, match=r"^The dice secret of session 1 is missing \(.*d\.db\.secrets is gone\), so "
                                        r"the engine will not roll: enter the faces rolled at the table with --dice"):
        camp.execute(L.RollDice(character="thor", exprs=["1d20"]))
    assert camp.store.last_position() == before
    camp.execute(L.RollDice(character="thor", exprs=["1d20"]), faces=[12])  # the table's dice still work
    camp.end_session()
    camp.close()
    report = _report(path)
    assert not report.ok
    assert report.problems == ["session 1 ended without revealing its seed (its secret was lost): its engine dice "
                               "cannot be checked"]


def test_a_secret_left_in_the_old_table_moves_beside_the_campaign_on_open(tmp_path: Path) -> None:
    path = tmp_path / "d.db"
    camp = init_campaign(path, name="Dés", ruleset="ledger")
    camp.start_session()
    secret = camp.session_secret(1)
    camp.close()
    secrets_path(path).unlink()  # as an older engine kept it: in the table, where a viewer of the file reads it
    conn = sqlite3.connect(path)
    conn.executemany("INSERT INTO session_secrets VALUES (?, ?)", [(1, secret), (0, "old, revealed")])
    conn.commit()
    conn.close()
    camp = open_campaign(path)
    assert camp.store.conn.execute("SELECT COUNT(*) FROM session_secrets").fetchone()[0] == 0
    assert json.loads(secrets_path(path).read_text())["sessions"] == {"1": secret}
    assert stat.S_IMODE(os.stat(secrets_path(path)).st_mode) == 0o600
    camp.execute(L.RollDice(character="thor", exprs=["1d20"]))
    camp.end_session()
    camp.close()
    assert _report(path).ok


# ------------------------------------------------------------------------------- logs written before

def test_a_log_written_before_dice_records_still_verifies_and_a_fudged_legacy_roll_is_caught(tmp_path: Path) -> None:
    """Legacy: the session started without the hmac-counter scheme, each command seeded by its first position."""
    path = tmp_path / "d.db"
    camp = init_campaign(path, name="Dés", ruleset="ledger")
    store = camp.store
    store.append("campaign", [SessionStarted(number=1, seed_commitment=hashlib.sha256(SECRET.encode()).hexdigest())],
                 store.stream_version("campaign"), session=1)
    rng = random.Random(derive_seed(SECRET, 3))
    faces = (rng.randint(1, 20), rng.randint(1, 6))
    rolls = [Roll(expr="1d20", faces=faces[:1], total=faces[0], source="rolled"),
             Roll(expr="1d6", faces=faces[1:], total=faces[1], source="rolled")]
    store.append("character:thor", [L.DiceRolled(character="thor", rolls=rolls)], 0, session=1, correlation_id="c")
    bad = Roll(expr="1d20", faces=(21 - faces[0],), total=21 - faces[0], source="rolled")
    store.append("character:thor", [L.DiceRolled(character="thor", rolls=[bad])], 1, session=1, correlation_id="d")
    store.append("campaign", [SessionEnded(number=1, seed_reveal=SECRET)], store.stream_version("campaign"), session=1)
    report = verify_rolls(camp)
    camp.close()
    assert (report.checked, report.legacy) == (3, 3)
    assert [(m.position, m.reason) for m in report.mismatches] == [
        (4, "the faces differ from those the revealed seed gives")]


@pytest.mark.parametrize("payload,count", [
    ({"rolls": [{"expr": "1d6", "faces": [3], "total": 3, "source": "rolled"}]}, 1),
    ({"attack": {"roll": {"expr": "1d20", "faces": [1], "total": 1, "source": "entered"}}, "n": 2}, 1),
    ({"expr": "not a roll"}, 0),
    ([{"expr": "1d4", "faces": [], "total": 0, "source": "rolled"}, 5], 1),
], ids=["list", "nested", "partial-keys", "top-list"])
def test_stored_rolls_finds_every_roll(payload: object, count: int) -> None:
    assert len(list(stored_rolls(payload))) == count


def test_an_honest_legacy_log_passes_verify_rolls_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "d.db"
    camp = init_campaign(path, name="Dés", ruleset="ledger")
    store = camp.store
    store.append("campaign", [SessionStarted(number=1, seed_commitment=hashlib.sha256(SECRET.encode()).hexdigest())],
                 store.stream_version("campaign"), session=1)
    rng = random.Random(derive_seed(SECRET, 3))
    face = rng.randint(1, 20)
    store.append("character:thor", [L.DiceRolled(character="thor", rolls=[
        Roll(expr="1d20", faces=(face,), total=face, source="rolled")])], 0, session=1, correlation_id="c")
    store.append("campaign", [SessionEnded(number=1, seed_reveal=SECRET)], store.stream_version("campaign"), session=1)
    camp.close()
    result = CliRunner().invoke(cli, ["--db", str(path), "verify", "--rolls"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1] == (
        "OK: 1 engine rolls of 1 closed session(s) re-derived from their revealed seeds; 0 entered at the table, "
        "0 in an open session, 0 without a public seed; 1 checked with the legacy scheme (docs/verifiable-dice.md).")
