"""Verifiable dice: engine rolls of closed sessions re-derive from the revealed seed; fudging is found."""

from __future__ import annotations

import hashlib
import random
import sqlite3
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

import ledger_ruleset as L
from cristal_events import init_campaign, open_campaign
from cristal_events.cli import cli
from cristal_events.fairness import stored_rolls, verify_rolls
from cristal_events.rolls import Roll

SECRET = "ab" * 32


@pytest.fixture
def fixed_secret(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr("cristal_events.service._random_hex", lambda n=32: SECRET[: 2 * n])
    return SECRET


def _independent_faces(secret: str, position: int, sides: list[int]) -> list[int]:
    """The scheme of docs/verifiable-dice.md written out again, without the engine's helpers."""
    seed = int.from_bytes(hashlib.sha256(f"{secret}:{position}".encode()).digest()[:16], "big")
    rng = random.Random(seed)
    return [rng.randint(1, s) for s in sides]


def _played(path: Path, *, seed: int | None = None) -> None:
    camp = init_campaign(path, name="Dés", ruleset="ledger", seed=seed)
    camp.start_session("Une")
    camp.execute(L.RollDice(character="thor", exprs=["1d20+5", "2d6"]))
    camp.execute(L.AwardXp(character="thor", amount=10))
    camp.execute(L.RollDice(character="thor", exprs=["3d6+2"]), faces=[6, 6, 6])  # entered at the table
    camp.execute(L.RollDice(character="york", exprs=["1d100", "[2d6+2]*2"]))
    camp.end_session()
    camp.close()


def test_engine_rolls_of_a_closed_session_re_derive_from_the_revealed_seed(tmp_path: Path, fixed_secret: str) -> None:
    _played(tmp_path / "d.db")
    camp = open_campaign(tmp_path / "d.db")
    first = next(camp.store.read_all(type="ledger.dice_rolled"))
    report = verify_rolls(camp)
    camp.close()
    assert first.position == 3
    rolls = msgspec.json.decode(first.payload)["rolls"]
    assert [f for r in rolls for f in r["faces"]] == _independent_faces(fixed_secret, 3, [20, 6, 6])
    assert report.ok, report.problems
    assert (report.sessions, report.checked, report.entered, report.pending) == (1, 4, 1, 0)


def test_the_commitment_is_the_hash_of_the_revealed_seed(tmp_path: Path, fixed_secret: str) -> None:
    _played(tmp_path / "d.db")
    camp = open_campaign(tmp_path / "d.db")
    started = next(camp.store.read_all(type="session.started")).event
    ended = next(camp.store.read_all(type="session.ended")).event
    camp.close()
    assert started.seed_commitment == hashlib.sha256(fixed_secret.encode()).hexdigest()
    assert ended.seed_reveal == fixed_secret


def test_a_fudged_engine_roll_is_reported_at_its_position(tmp_path: Path, fixed_secret: str) -> None:
    camp = init_campaign(tmp_path / "d.db", name="Dés", ruleset="ledger")
    camp.start_session("Une")
    camp.execute(L.RollDice(character="thor", exprs=["1d20"]))
    honest = _independent_faces(fixed_secret, 4, [20])[0]
    fudged = Roll(expr="1d20", faces=(20 if honest != 20 else 19,), total=20 if honest != 20 else 19, source="rolled")
    # a dishonest engine appends its own faces instead of the seeded ones
    [pos] = camp.store.append("character:thor", [L.DiceRolled(character="thor", rolls=[fudged])],
                              camp.store.stream_version("character:thor"), session=1, correlation_id="fudge")
    camp.end_session()
    report = verify_rolls(camp)
    camp.close()
    assert pos == 4
    assert not report.ok
    assert [(m.position, m.stored, m.derived) for m in report.mismatches] == [(4, list(fudged.faces), [honest])]
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "d.db"), "verify", "--rolls"])
    assert result.exit_code == 1
    assert result.output.strip().endswith(
        "Error: the campaign does not verify at position 4: dice: position 4 (1d20): the faces differ from those the revealed seed gives.")


def test_a_wrong_total_is_reported(tmp_path: Path, fixed_secret: str) -> None:
    camp = init_campaign(tmp_path / "d.db", name="Dés", ruleset="ledger")
    camp.start_session()
    faces = tuple(_independent_faces(fixed_secret, 3, [6, 6]))
    bad = Roll(expr="2d6+2", faces=faces, total=sum(faces) + 3, source="rolled")
    camp.store.append("character:thor", [L.DiceRolled(character="thor", rolls=[bad])], 0, session=1,
                      correlation_id="c")
    camp.end_session()
    report = verify_rolls(camp)
    camp.close()
    assert [m.reason for m in report.mismatches] == [f"the total {sum(faces) + 3} should be {sum(faces) + 2}"]


def test_a_reveal_that_does_not_match_its_commitment_is_reported(tmp_path: Path, fixed_secret: str) -> None:
    _played(tmp_path / "d.db")
    conn = sqlite3.connect(tmp_path / "d.db", isolation_level=None)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("UPDATE events SET payload = json_set(payload, '$.seed_reveal', 'cd') WHERE type = 'session.ended'")
    conn.close()
    camp = open_campaign(tmp_path / "d.db")
    report = verify_rolls(camp)
    camp.close()
    assert "session 1: the revealed seed does not match the commitment made at its start" in report.problems


def test_rolls_of_an_open_session_are_pending_and_public_seed_rolls_are_checked(tmp_path: Path) -> None:
    camp = init_campaign(tmp_path / "d.db", name="Dés", ruleset="ledger", seed=11)
    camp.execute(L.RollDice(character="thor", exprs=["1d6"]))  # outside sessions: the public campaign seed
    camp.start_session()
    camp.execute(L.RollDice(character="thor", exprs=["1d6", "1d8"]))
    report = verify_rolls(camp)
    camp.close()
    assert report.ok
    assert (report.checked, report.pending, report.unverifiable, report.sessions) == (1, 2, 0, 0)


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


@pytest.mark.parametrize("payload,count", [
    ({"rolls": [{"expr": "1d6", "faces": [3], "total": 3, "source": "rolled"}]}, 1),
    ({"attack": {"roll": {"expr": "1d20", "faces": [1], "total": 1, "source": "entered"}}, "n": 2}, 1),
    ({"expr": "not a roll"}, 0),
    ([{"expr": "1d4", "faces": [], "total": 0, "source": "rolled"}, 5], 1),
], ids=["list", "nested", "partial-keys", "top-list"])
def test_stored_rolls_finds_every_roll(payload: object, count: int) -> None:
    assert len(list(stored_rolls(payload))) == count
