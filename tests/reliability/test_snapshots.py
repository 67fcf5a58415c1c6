"""Snapshots stay few (thinned as the log grows) and time travel from them equals a fold from scratch."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import ledger_ruleset as L
import msgspec
import pytest
from click.testing import CliRunner

from cristal_events import init_campaign, open_campaign, service
from cristal_events.cli import cli
from cristal_events.cli.script import load as load_script
from cristal_events.cli.script import run as run_script


@pytest.fixture
def small_snapshots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service, "SNAPSHOT_EVERY", 10)
    monkeypatch.setattr(service, "SNAPSHOT_KEEP", 4)


@pytest.mark.parametrize("last,spacing", [(9, 10), (40, 10), (41, 10), (50, 20), (80, 20), (99, 20), (100, 40), (201, 80)],
                         ids=lambda v: str(v))
def test_the_spacing_doubles_to_keep_about_snapshot_keep(small_snapshots: None, last: int, spacing: int) -> None:
    assert service.snapshot_spacing(last) == spacing


def test_snapshots_are_thinned_and_time_travel_still_agrees(small_snapshots: None, tmp_path: Path) -> None:
    camp = init_campaign(tmp_path / "s.db", name="Instantanés", ruleset="ledger", seed=1)
    for i in range(200):
        camp.execute(L.AwardXp(character="thor" if i % 3 else "york", amount=i + 1))
    kept = [p for (p,) in camp.store.conn.execute("SELECT position FROM snapshots ORDER BY position")]
    assert kept == [10, 80, 160, 200]  # the first of each 80-wide bucket, and the latest
    for position in (1, 9, 10, 11, 77, 80, 123, 159, 199, 201):
        world = camp._initial()
        for rec in camp.store.read_all(until=position):
            world = camp.fold(world, rec)
        assert camp.state_at(position).rules == world.rules
        assert camp.state_at(position).core.position == position
    camp.close()


# ------------------------------------------------------------ snapshots bound to the log (issue 14, item 6)

SAMPLES = Path(__file__).resolve().parents[2] / "sample_campaigns"


def _cli(db: Path, *args: str):
    return CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=False)


@pytest.fixture
def thor_30xp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Lois du Cristal campaign played through the CLI, a snapshot every 4 events: thor has earned 30 XP."""
    monkeypatch.setattr(service, "SNAPSHOT_EVERY", 4)
    db = tmp_path / "forge.db"
    assert _cli(db, "init", "--name", "Forge", "--seed", "5").exit_code == 0
    assert _cli(db, "character", "create", "thor", "--race", "Humain").exit_code == 0
    assert _cli(db, "xp", "award", "thor", "30", "--reason", "gobelins").exit_code == 0
    for text in ("a", "b", "c", "d", "e"):
        assert _cli(db, "note", text).exit_code == 0
    conn = sqlite3.connect(db)
    assert [p for (p,) in conn.execute("SELECT position FROM snapshots ORDER BY position")] == [4, 8]
    conn.close()
    return db


def _forge(db: Path, position: int, xp: int, *, recompute_digest: bool = False) -> None:
    """A plain UPDATE of one snapshot's state (no trigger dropped, no event hash touched): thor gets ``xp``."""
    conn = sqlite3.connect(db, isolation_level=None)
    key, event_hash, blob = conn.execute("SELECT state_version, event_hash, state FROM snapshots WHERE position = ?",
                                         (position,)).fetchone()
    core, rules = msgspec.msgpack.decode(blob)
    rules["characters"]["thor"]["xp"] = xp
    forged = msgspec.msgpack.encode([core, rules])
    conn.execute("UPDATE snapshots SET state = ? WHERE position = ?", (forged, position))
    if recompute_digest:  # the attacker read the docs: the digest is unkeyed
        conn.execute("UPDATE snapshots SET digest = ? WHERE position = ?",
                     (service.snapshot_digest(key, position, event_hash, forged), position))
    conn.close()


def test_a_forged_snapshot_is_ignored_with_a_warning_and_verify_names_it(thor_30xp: Path) -> None:
    _forge(thor_30xp, 8, 100_000)
    bought = _cli(thor_30xp, "xp", "buy", "thor", "level", "Guerrier", "--stat", "FRC")
    assert bought.exit_code == 1  # decided on the state folded from the log: 30 XP
    assert "Error: thor has 30 XP; global level 1 costs 100 XP." in bought.stderr
    assert ("Warning: the snapshot at position 8 was changed after it was written (digest mismatch); it was ignored "
            "and the state folded from the log (run 'cristal verify', then 'cristal rebuild').") in bought.stderr
    sheet = _cli(thor_30xp, "sheet", "thor", "--json")
    assert msgspec.json.decode(sheet.stdout)["variable"]["XP"] == 30
    verify = _cli(thor_30xp, "verify")
    assert verify.exit_code == 1
    assert verify.stderr.endswith("Error: the campaign does not verify at position 8: snapshot: the snapshot at "
                                  "position 8 was changed after it was written (digest mismatch).\n")
    rebuilt = _cli(thor_30xp, "rebuild")
    assert rebuilt.exit_code == 0
    assert ("Warning: the snapshot at position 8 was changed after it was written (digest mismatch); replaced by a "
            "snapshot folded from the log.") in rebuilt.stderr
    after = _cli(thor_30xp, "verify")
    assert after.exit_code == 0 and "snapshots match the log" in after.stdout
    again = _cli(thor_30xp, "xp", "buy", "thor", "level", "Guerrier", "--stat", "FRC")
    assert again.exit_code == 1 and "Warning" not in again.stderr


def test_a_snapshot_forged_with_its_digest_recomputed_is_caught_by_verify_not_at_use(thor_30xp: Path) -> None:
    """The limit the docs state: an unkeyed digest can be recomputed, so the engine uses that snapshot;
    ``verify`` folds the log and names it, and ``rebuild`` says it replaced it."""
    _forge(thor_30xp, 8, 100_000, recompute_digest=True)
    bought = _cli(thor_30xp, "xp", "buy", "thor", "level", "Guerrier", "--stat", "FRC")
    assert bought.exit_code == 0, bought.output
    verify = _cli(thor_30xp, "verify", "--json")
    assert verify.exit_code == 1
    report = msgspec.json.decode(verify.stdout)
    assert report["first_bad_position"] == 8
    assert report["problems"][0] == "snapshot: the snapshot at position 8 differs from a fold of the log up to it"
    rebuilt = _cli(thor_30xp, "rebuild", "--json")
    assert msgspec.json.decode(rebuilt.stdout)["snapshots"]["replaced"] == [
        "the snapshot at position 8 differs from a fold of the log up to it"]


def test_verify_checks_every_snapshot_not_only_the_latest(thor_30xp: Path) -> None:
    _forge(thor_30xp, 4, 7, recompute_digest=True)  # an older snapshot, never used by the current state
    verify = _cli(thor_30xp, "verify")
    assert verify.exit_code == 1
    assert "at position 4: snapshot: the snapshot at position 4 differs from a fold of the log" in verify.stderr


@pytest.mark.parametrize("attack", ["moved", "unbound-hash", "past-the-end"])
def test_a_snapshot_not_bound_to_its_position_is_ignored(thor_30xp: Path, attack: str) -> None:
    conn = sqlite3.connect(thor_30xp, isolation_level=None)
    if attack == "moved":  # the state of position 4 offered as the state at 8 (before thor's... nothing)
        conn.execute("DELETE FROM snapshots WHERE position = 8")
        conn.execute("UPDATE snapshots SET position = 8 WHERE position = 4")
        problem = "the snapshot at position 8 was taken of another event than the log holds there"
    elif attack == "unbound-hash":
        conn.execute("UPDATE snapshots SET event_hash = ? WHERE position = 8", ("0" * 64,))
        problem = "the snapshot at position 8 was taken of another event than the log holds there"
    else:
        conn.execute("UPDATE snapshots SET position = 99 WHERE position = 8")
        problem = "the snapshot at position 99 lies past the end of the log"
    conn.close()
    camp = open_campaign(thor_30xp, readonly=True)
    assert camp.state().core.position == 8
    assert camp.warnings == [f"{problem}; it was ignored and the state folded from the log "
                             "(run 'cristal verify', then 'cristal rebuild')"]
    camp.close()
    verify = _cli(thor_30xp, "verify")
    assert verify.exit_code == 1 and f"snapshot: {problem}." in verify.stderr


def test_rebuild_writes_the_snapshots_again_from_the_log(thor_30xp: Path) -> None:
    conn = sqlite3.connect(thor_30xp, isolation_level=None)
    conn.execute("DELETE FROM snapshots")
    conn.close()
    assert _cli(thor_30xp, "note", "f").exit_code == 0  # position 9: no snapshot due
    result = _cli(thor_30xp, "rebuild")
    assert result.exit_code == 0 and result.stdout.endswith(", 3 snapshot(s).\n")
    camp = open_campaign(thor_30xp, readonly=True)
    key = camp._state_key()
    assert camp.store.snapshot_positions(key) == [4, 8, 9]  # one per spacing and the last position
    assert camp.check_snapshots() == []
    for position in (4, 8, 9):
        world = camp._initial()
        for rec in camp.store.read_all(until=position):
            world = camp.fold(world, rec)
        assert camp.state_at(position).rules == world.rules
    camp.close()


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.toml")), ids=lambda p: p.stem)
def test_honest_samples_with_many_snapshots_verify(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both real rulesets: every snapshot the engine writes equals a fold of the log (verify never accuses)."""
    monkeypatch.setattr(service, "SNAPSHOT_EVERY", 3)
    monkeypatch.setattr(service, "SNAPSHOT_KEEP", 1000)
    db = tmp_path / "c.db"
    run_script(load_script(path), db)
    camp = open_campaign(db, readonly=True)
    assert len(camp.store.snapshot_positions(camp._state_key())) > 5
    assert camp.check_snapshots() == []
    camp.close()
    result = _cli(db, "verify")
    assert result.exit_code == 0, result.output


def test_a_campaign_of_an_older_engine_drops_its_unbound_snapshots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Snapshots written before migration 0005 carry no binding: a read-only open never uses them,
    and the first read-write open drops them (they are a cache)."""
    from cristal_events import migrate

    shipped = migrate.available()
    monkeypatch.setattr(migrate, "available", lambda: [m for m in shipped if m.number <= 3])
    db = tmp_path / "old.db"
    camp = init_campaign(db, name="Ancienne", ruleset="ledger", seed=1)
    for _ in range(12):
        camp.execute(L.AwardXp(character="thor", amount=10))
    conn = camp.store.conn
    world = camp.state()
    assert world.core.position == 13
    forged = msgspec.msgpack.encode((world.core, msgspec.structs.replace(world.rules, xp={"thor": 999})))
    conn.execute("INSERT INTO snapshots VALUES (13, ?, ?)", (camp._state_key(), forged))
    camp.close()
    monkeypatch.setattr(migrate, "available", lambda: shipped)
    old = open_campaign(db, readonly=True)
    assert old.state().rules.xp == old.state_at(13).rules.xp == {"thor": 120} and old.warnings == []
    assert old.check_snapshots() == []
    old.close()
    verify = _cli(db, "verify")  # the read-only verify reports the pending migration, nothing else breaks
    assert verify.exit_code == 1 and "migration(s) were never applied" in verify.stderr
    camp = open_campaign(db)
    assert camp.store.snapshot_positions(camp._state_key()) == []
    camp.close()
    assert _cli(db, "verify").exit_code == 0
