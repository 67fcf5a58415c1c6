"""``cristal import`` checks the history it is given, not only the types (issue 14, items 9 and 14).

Each attack is played as someone holding an export would: edit a line of a real export (the sample
campaign "La Compagnie du Cristal"), recompute the whole hash chain so that the file verifies, and
import it through the CLI. The import must refuse with the line number and one sentence, and leave
nothing in the destination folder.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from cristal_events.cli import cli
from cristal_events.cli.script import load
from cristal_events.cli.script import run as run_script
from cristal_events.events import NoteRecorded
from cristal_events.exchange import payload_text
from cristal_events.service import Campaign, ChangeSetting, RecordNote
from cristal_events.store import GENESIS, row_hash

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_campaigns"


def cristal(db: Path, *args: str):
    return CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=False)


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> list[dict]:
    """The sample campaign's whole-timeline JSONL export, as a list of event line objects (without the
    receipt trailer the export may end with: the tests that want one add it)."""
    folder = tmp_path_factory.mktemp("sample")
    db = folder / "compagnie.db"
    run_script(load(SAMPLES / "compagnie_du_cristal.toml"), db)
    out = folder / "compagnie.jsonl"
    assert cristal(db, "export", "timeline", "--format", "jsonl", "-o", str(out)).exit_code == 0
    return [d for d in map(json.loads, out.read_text().splitlines()) if "receipt" not in d]


def rechain(lines: list[dict]) -> list[dict]:
    """Recompute every prev_hash and hash, as a forger who holds the file would."""
    prev = GENESIS
    for d in lines:
        if "receipt" in d:
            continue
        d["prev_hash"] = prev
        d["hash"] = prev = row_hash(prev, d["position"], d["event_id"], d["stream"], d["version"], d["type"],
                                    d["schema_version"], payload_text(d["payload"]), d["recorded_at"], d["session"],
                                    d["actor"], d["causation_id"], d["correlation_id"])
    return lines


def write(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in lines), encoding="utf-8")
    return path


def copy_of(lines: list[dict]) -> list[dict]:
    return json.loads(json.dumps(lines))


def refused(tmp_path: Path, lines: list[dict], *, chain: bool = True) -> tuple[Path, str]:
    """Import the (re-chained) lines; assert exit 1, one line of output, nothing left; return the message."""
    src = write(tmp_path / "forged.jsonl", rechain(lines) if chain else lines)
    target = tmp_path / "copy.db"
    result = cristal(tmp_path / "unused.db", "import", str(src), str(target))
    assert result.exit_code == 1, result.output
    assert result.output.count("\n") == 1 and result.output.startswith("Error: "), result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["forged.jsonl"]  # no campaign, no temporary file
    return src, result.output.removeprefix("Error: ").rstrip("\n")


def at(lines: list[dict], position: int) -> dict:
    return lines[position - 1]


def where(lines: list[dict], type_: str, **payload: object) -> int:
    """The position of the first event of ``type_`` whose payload has ``payload`` (the sample's
    positions move when the engine records more, e.g. each command's dice record)."""
    return next(d["position"] for d in lines
                if d["type"] == type_ and all(d["payload"].get(k) == v for k, v in payload.items()))


# ------------------------------------------------------------------------------------- streams
def test_a_character_stream_that_was_never_created_is_refused(exported, tmp_path):
    lines = copy_of(exported)
    award = at(lines, 6)  # thor's first XP award, moved to a character nobody created
    award["stream"], award["version"], award["payload"]["character"] = "character:ghost", 1, "ghost"
    src, msg = refused(tmp_path, lines)
    assert msg == (f"Line 6 of {src}: the character stream character:ghost was never opened: it must start "
                   "with character.created; nothing was imported.")


def test_a_combat_stream_without_its_start_is_refused(exported, tmp_path):
    lines = copy_of(exported)
    attack = at(lines, 21)
    attack["stream"], attack["version"], attack["payload"]["name"] = "combat:fantome", 1, "fantome"
    src, msg = refused(tmp_path, lines)
    assert msg == (f"Line 21 of {src}: the combat stream combat:fantome was never opened (or it was closed): "
                   "it must start with combat.started; nothing was imported.")


def test_an_event_after_its_combat_ended_is_refused(exported, tmp_path):
    lines = copy_of(exported)
    e = where(lines, "combat.ended")
    end, action = at(lines, e), at(lines, e - 1)  # swap the end of the combat and its last action
    assert action["stream"] == end["stream"] == "combat:pendu"
    lines[e - 2], lines[e - 1] = end, action
    end["position"], action["position"] = e - 1, e
    end["version"], action["version"] = action["version"], end["version"]
    src, msg = refused(tmp_path, lines)
    assert msg.startswith(f"Line {e} of {src}: the combat stream combat:pendu was never opened (or it was closed)")


def test_a_character_created_twice_is_refused(exported, tmp_path):
    lines = copy_of(exported)
    twice = copy_of([at(lines, 3)])[0]
    twice["event_id"] = "01a2323d-0000-7000-8000-000000000001"
    lines.insert(3, twice)  # thor created again at position 4
    for i, d in enumerate(lines, 1):
        d["position"] = i
    twice["version"] = 2
    for d in lines[4:]:
        if d["stream"] == "character:thor":
            d["version"] += 1
    src, msg = refused(tmp_path, lines)
    assert msg == f"Line 4 of {src}: it opens the character stream character:thor a second time; nothing was imported."


def test_a_stream_version_that_skips_is_refused(exported, tmp_path):
    lines = copy_of(exported)
    at(lines, 9)["version"] = 4  # thor's stream: 1, 2, then 4
    src, msg = refused(tmp_path, lines)
    assert msg == (f"Line 9 of {src}: the stream character:thor is at version 2, so its next event is version 3, "
                   "not 4; nothing was imported.")


def test_an_event_about_another_character_than_its_stream_is_refused(exported, tmp_path):
    lines = copy_of(exported)
    at(lines, 6)["payload"]["character"] = "xar"
    src, msg = refused(tmp_path, lines)
    assert msg == (f"Line 6 of {src}: it is about the character 'xar' but stands on the stream character:thor; "
                   "nothing was imported.")


def test_a_ruleset_event_on_the_campaign_stream_is_refused(exported, tmp_path):
    lines = copy_of(exported)
    award = at(lines, 6)
    award["stream"], award["version"] = "campaign", 3
    for d in lines[6:]:
        if d["stream"] == "campaign":
            d["version"] += 1
    src, msg = refused(tmp_path, lines)
    assert msg == (f"Line 6 of {src}: the Les Lois du Cristal rules write no stream named 'campaign'; "
                   "nothing was imported.")


# ------------------------------------------------------------------------------------ sessions
def test_a_session_that_never_started_is_refused(exported, tmp_path):
    lines = copy_of(exported)
    award = where(lines, "session.started", number=2) + 1
    assert at(lines, award)["type"] == "xp.awarded"
    at(lines, award)["session"] = 7  # an award stamped with a session that does not exist
    src, msg = refused(tmp_path, lines)
    assert msg == (f"Line {award} of {src}: the event is stamped with session 7 but session 2 is the open one; "
                   "nothing was imported.")


def test_sessions_are_numbered_one_two_three(exported, tmp_path):
    lines = copy_of(exported)
    s2 = where(lines, "session.started", number=2)
    start = at(lines, s2)
    start["payload"]["number"] = 3
    for d in lines[s2 - 1:]:
        if d["session"] == 2:
            d["session"] = 3
    src, msg = refused(tmp_path, lines)
    assert msg == f"Line {s2} of {src}: the session after session 1 is number 2, not 3; nothing was imported."


def test_overlapping_sessions_are_refused(exported, tmp_path):
    lines = copy_of(exported)
    e1 = where(lines, "session.ended", number=1)
    del lines[e1 - 1]  # session 1 never ends: session 2 starts inside it
    for i, d in enumerate(lines, 1):
        d["position"] = i
        if d["stream"] == "campaign" and i >= e1:
            d["version"] -= 1
    src, msg = refused(tmp_path, lines)
    assert msg == f"Line {e1} of {src}: session 2 starts while session 1 is still open; nothing was imported."


def test_an_event_outside_any_session_stamped_with_one_is_refused(exported, tmp_path):
    lines = copy_of(exported)
    end = next(d for d in lines if d["type"] == "session.ended" and d["session"] == 1)
    end["session"] = None
    src, msg = refused(tmp_path, lines)
    assert msg == f"Line {end['position']} of {src}: the end of session 1 is stamped with session None; nothing was imported."


# ------------------------------------------------------------------------------------ envelope
def test_an_empty_actor_is_refused(exported, tmp_path):
    lines = copy_of(exported)
    at(lines, 12)["actor"] = "  "
    src, msg = refused(tmp_path, lines)
    assert msg == f"Line 12 of {src}: the event has no actor (who recorded it); nothing was imported."


def test_an_unparseable_date_is_refused(exported, tmp_path):
    lines = copy_of(exported)
    at(lines, 12)["recorded_at"] = "hier soir"
    src, msg = refused(tmp_path, lines)
    assert msg == (f"Line 12 of {src}: recorded_at 'hier soir' is not an ISO-8601 date and time; "
                   "nothing was imported.")


def test_a_reused_event_id_is_refused(exported, tmp_path):
    lines = copy_of(exported)
    at(lines, 12)["event_id"] = at(lines, 11)["event_id"]
    src, msg = refused(tmp_path, lines)
    assert msg == (f"Line 12 of {src}: the event_id {at(lines, 11)['event_id']} was already used by an earlier "
                   "line; nothing was imported.")


def test_a_second_campaign_header_is_refused(exported, tmp_path):
    lines = copy_of(exported)
    header = copy_of([at(lines, 1)])[0]
    campaign_version = max(d["version"] for d in lines if d["stream"] == "campaign")
    header.update(event_id="01a2323d-0000-7000-8000-000000000002", position=len(lines) + 1,
                  version=campaign_version + 1, session=None)
    lines.append(header)
    src, msg = refused(tmp_path, lines)
    assert msg == f"Line {len(lines)} of {src}: a campaign has one campaign.created event, on line 1; nothing was imported."


@pytest.mark.parametrize("edit, why", [
    (lambda p: p.update(rounding="au hasard"), "the rounding mode 'au hasard' is neither 'round' nor 'truncate'"),
    (lambda p: p["settings"].update(chain_attacks="beaucoup"),
     "Invalid cristal campaign setting: Expected `int`, got `str` - at `$.chain_attacks`"),
], ids=["rounding", "setting"])
def test_a_header_the_engine_would_not_write_is_refused(exported, tmp_path, edit, why):
    lines = copy_of(exported)
    edit(at(lines, 1)["payload"])
    src, msg = refused(tmp_path, lines)
    assert msg == f"Line 1 of {src}: {why}; nothing was imported."


def test_a_line_that_is_not_an_event_names_its_line(exported, tmp_path):
    src = tmp_path / "forged.jsonl"
    text = "".join(json.dumps(d) + "\n" for d in exported[:5]) + "[1, 2]\n"
    src.write_text(text)
    result = cristal(tmp_path / "unused.db", "import", str(src), str(tmp_path / "copy.db"))
    assert (result.exit_code, result.output) == (
        1, f"Error: Line 6 of {src}: it is not an exported event (Expected `object`, got `array`); "
           "nothing was imported.\n")
    src.write_text("".join(json.dumps(d) + "\n" for d in exported[:5]) + '{"payload": ' + "[" * 100_000 + "\n")
    result = cristal(tmp_path / "unused.db", "import", str(src), str(tmp_path / "copy.db"))
    assert result.exit_code == 1 and result.output.startswith(f"Error: Line 6 of {src}: it is not an exported event")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["forged.jsonl"]


@pytest.mark.parametrize("edit, why", [
    (lambda d: d["payload"].update(amount=60.5),
     "Invalid 'xp.awarded' payload: Expected `int`, got `float` - at `$.amount`"),
    (lambda d: d["payload"].update(character=None),
     "Invalid 'xp.awarded' payload: Expected `str`, got `null` - at `$.character`"),
    (lambda d: d.update(position=2**64),
     "the file does not verify: position {award} is missing (the line holds position 18446744073709551616)"),
    (lambda d: d.update(schema_version=9),
     "Event type 'xp.awarded' is stored at schema version 9, newer than this engine's 1"),
], ids=["float-amount", "null-character", "huge-position", "newer-schema"])
def test_a_payload_the_codec_refuses_names_its_line(exported, tmp_path, edit, why):
    lines = copy_of(exported)
    award = where(lines, "session.started", number=2) + 1
    assert at(lines, award)["type"] == "xp.awarded"
    edit(at(lines, award))
    src, msg = refused(tmp_path, lines)
    assert msg == f"Line {award} of {src}: {why.format(award=award)}; nothing was imported."


def test_a_number_out_of_any_range_names_its_line(exported, tmp_path):
    src = tmp_path / "forged.jsonl"
    text = "".join(json.dumps(d) + "\n" for d in exported[:4])
    src.write_text(text + json.dumps(exported[4]).replace('"version": 1', '"version": 1e400', 1) + "\n")
    result = cristal(tmp_path / "unused.db", "import", str(src), str(tmp_path / "copy.db"))
    assert (result.exit_code, result.output) == (
        1, f"Error: Line 5 of {src}: it is not an exported event (Number out of range - at `$.version`); "
           "nothing was imported.\n")


# ------------------------------------------------------------------------------ rules' amounts
def test_a_negative_xp_award_is_refused(exported, tmp_path):
    lines = copy_of(exported)
    n = where(lines, "session.started", number=2) + 1
    award = at(lines, n)
    assert award["type"] == "xp.awarded"
    award["payload"]["amount"], award["payload"]["balance_after"] = -5000, 300 - 5000
    src, msg = refused(tmp_path, lines)
    # the rules refuse it: the ruleset's admit hook, or (with bounds on the event) the codec
    assert msg.startswith(f"Line {n} of {src}: ") and msg.endswith("; nothing was imported.")
    assert "-5000" in msg


def test_a_purchase_the_character_cannot_pay_is_refused(exported, tmp_path):
    lines = copy_of(exported)
    at(lines, 6)["payload"]["amount"] = 40  # thor earns 40 XP, then buys a level that costs 100
    src, msg = refused(tmp_path, lines)
    assert msg == f"Line 9 of {src}: thor has 40 XP and cannot pay 100 XP; nothing was imported."


def test_a_note_without_text_is_refused(exported, tmp_path):
    lines = copy_of(exported)
    note = next(d for d in lines if d["type"] == "correction.recorded")
    note["payload"]["reason"] = " "
    src, msg = refused(tmp_path, lines)
    assert msg == f"Line {note['position']} of {src}: a correction needs a reason; nothing was imported."


def test_a_changed_setting_the_rules_refuse_is_refused(tmp_path):
    db = tmp_path / "c.db"
    camp = Campaign.create(db, name="Réglages", ruleset="cristal")
    camp.execute(ChangeSetting(key="chain_attacks", value=3))
    camp.close()
    out = tmp_path / "c.jsonl"
    assert cristal(db, "export", "timeline", "--format", "jsonl", "-o", str(out)).exit_code == 0
    lines = [d for d in map(json.loads, out.read_text().splitlines()) if "receipt" not in d]
    lines[1]["payload"]["key"] = "rounding"
    db.unlink()
    for p in tmp_path.iterdir():
        if p.name != "c.jsonl":
            p.unlink()
    out.unlink()
    src, msg = refused(tmp_path, lines)
    assert msg == f"Line 2 of {src}: the rounding mode is fixed for the whole campaign; nothing was imported."


def test_an_event_the_rules_cannot_fold_is_refused(exported, tmp_path):
    """A combat event about someone who is not in the combat: the fold cannot take it (on the old import
    it was committed, and the read models then failed on it)."""
    lines = copy_of(exported)
    at(lines, 22)["payload"]["character"] = "personne"
    src, msg = refused(tmp_path, lines)
    assert msg == (f"Line 22 of {src}: the cristal rules cannot fold this combat.pv_changed event (it names "
                   "'personne', unknown at that point of the campaign); nothing was imported.")


# ----------------------------------------------------------------------------- open sessions
def test_a_mid_session_export_is_refused_until_the_session_ends(tmp_path):
    db = tmp_path / "live.db"
    camp = Campaign.create(db, name="En cours", ruleset="cristal")
    camp.start_session(title="Ce soir")
    camp.execute(RecordNote(text="On joue"))
    camp.close()
    out = tmp_path / "live.jsonl"
    assert cristal(db, "export", "timeline", "--format", "jsonl", "-o", str(out)).exit_code == 0
    result = cristal(db, "import", str(out), str(tmp_path / "copy.db"))
    assert (result.exit_code, result.output) == (
        1, f"Error: {out} stops in the middle of session 1 (started on line 2), whose dice secret is not in the "
           "export, so its rolls could not be verified after an import: end the session ('cristal session end'), "
           "export again and import that file; nothing was imported.\n")
    assert not (tmp_path / "copy.db").exists()
    assert cristal(db, "session", "end").exit_code == 0
    assert cristal(db, "export", "timeline", "--format", "jsonl", "-o", str(out)).exit_code == 0
    assert cristal(db, "import", str(out), str(tmp_path / "copy.db")).exit_code == 0
    assert cristal(tmp_path / "copy.db", "verify", "--rolls").exit_code == 0


# ---------------------------------------------------------------------------------- receipts
def test_a_receipt_trailer_is_checked_and_not_imported(exported, tmp_path):
    lines = copy_of(exported)
    last = lines[-1]
    src = write(tmp_path / "t.jsonl", [*lines, {"receipt": f"{last['position']}:{last['hash']}"}])
    result = cristal(tmp_path / "unused.db", "import", str(src), str(tmp_path / "copy.db"))
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"Imported {len(lines)} events into ")
    with Campaign.open(tmp_path / "copy.db", readonly=True) as camp:
        assert (camp.store.last_position(), camp.store.last_hash()) == (len(lines), last["hash"])


@pytest.mark.parametrize("trailer, why", [
    ("{p1}:{h1}", "the receipt '{p1}:{h1}' does not match the chain above it, which ends on {p}:{h}"),
    ("{p}:{bad}", "the receipt '{p}:{bad}' does not match the chain above it, which ends on {p}:{h}"),
    ("{p}", "the receipt '{p}' does not match the chain above it, which ends on {p}:{h}"),
], ids=["older-position", "other-hash", "no-hash"])
def test_a_receipt_that_does_not_match_the_chain_is_refused(exported, tmp_path, trailer, why):
    lines = copy_of(exported)
    n = len(lines)
    names = {"p": n, "p1": n - 1, "h1": lines[-2]["hash"], "h": lines[-1]["hash"], "bad": "0" * 64}
    src, msg = refused(tmp_path, [*lines, {"receipt": trailer.format(**names)}], chain=False)
    assert msg == f"Line {n + 1} of {src}: {why.format(**names)}; nothing was imported."


def test_nothing_may_follow_the_receipt(exported, tmp_path):
    lines = copy_of(exported)
    n = len(lines)
    receipt = {"receipt": f"{n - 1}:{lines[-2]['hash']}"}
    src, msg = refused(tmp_path, [*lines[:-1], receipt, lines[-1]], chain=False)
    assert msg == f"Line {n + 1} of {src}: nothing may follow the receipt line (line {n}); nothing was imported."


# ---------------------------------------------------------------------------------- honest
@pytest.mark.parametrize("sample", ["compagnie_du_cristal", "brigands_de_la_foret", "illergan_gue_des_loups"])
def test_every_sample_campaign_imports_with_the_same_hashes(tmp_path, sample):
    db = tmp_path / "built.db"
    run_script(load(SAMPLES / f"{sample}.toml"), db)
    out = tmp_path / "t.jsonl"
    assert cristal(db, "export", "timeline", "--format", "jsonl", "-o", str(out)).exit_code == 0
    result = cristal(db, "import", str(out), str(tmp_path / "copy.db"))
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("built.db")) == [
        "copy.db", "t.jsonl"]  # no -wal, -shm or temporary file beside the import
    with Campaign.open(db, readonly=True) as a, Campaign.open(tmp_path / "copy.db", readonly=True) as b:
        assert [r.hash for r in a.store.read_all()] == [r.hash for r in b.store.read_all()]


def test_a_generated_campaign_imports(tmp_path):
    """The benchmark generator's campaign (fights, purchases, rests, deaths and recruits) imports."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import generator
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    db = tmp_path / "gen.db"
    generator.generate(str(db), 1500, seed=3)
    out = tmp_path / "gen.jsonl"
    assert cristal(db, "export", "timeline", "--format", "jsonl", "-o", str(out)).exit_code == 0
    result = cristal(db, "import", str(out), str(tmp_path / "copy.db"))
    assert result.exit_code == 0, result.output


# ------------------------------------------------------------------------------- killed import
@pytest.fixture(scope="module")
def big_export(tmp_path_factory) -> Path:
    """A JSONL of about 120,000 events (notes in closed sessions), built with the store's bulk append."""
    folder = tmp_path_factory.mktemp("big")
    db = folder / "big.db"
    camp = Campaign.create(db, name="Longue", ruleset="cristal")
    for _ in range(2):
        camp.start_session()
        with camp.store.transaction():
            for _ in range(60):
                camp.store.append("campaign", [NoteRecorded(text=f"note {i}") for i in range(1000)],
                                  session=camp.state().core.session)
        camp.end_session()
    camp.close()
    out = folder / "big.jsonl"
    assert cristal(db, "export", "timeline", "--format", "jsonl", "-o", str(out)).exit_code == 0
    return out


def _start_import(src: Path, target: Path) -> subprocess.Popen:
    code = "import sys; from cristal_events.cli import main; sys.argv[0] = 'cristal'; main()"
    return subprocess.Popen([sys.executable, "-c", code, "import", str(src), str(target)],
                            env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _bytes_read(pid: int) -> int:
    """What the process has read so far (its Python start-up included), from /proc."""
    try:
        text = Path(f"/proc/{pid}/io").read_text()
    except OSError:
        return 0
    return int(next(x for x in text.splitlines() if x.startswith("rchar:")).split()[1])


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="reads the import's progress from /proc")
def test_a_killed_import_leaves_nothing_behind(big_export, tmp_path):
    dest = tmp_path / "dest"
    dest.mkdir()
    target = dest / "copy.db"
    # killed while it checks the file (it has read a part of the file once): nothing was ever written
    size = big_export.stat().st_size
    proc = _start_import(big_export, target)
    while (seen := _bytes_read(proc.pid)) < size // 4:
        assert proc.poll() is None
        time.sleep(0.002)
    proc.send_signal(signal.SIGKILL)
    assert seen < size * 3 // 4  # killed in its first reading of the file (building starts after it)
    proc.wait()
    assert list(dest.iterdir()) == []
    # killed while it builds the campaign: the campaign never appears under its name
    proc = _start_import(big_export, target)
    deadline = time.monotonic() + 60
    while not any(p.name.startswith(".copy.db.importing-") for p in dest.iterdir()):
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not target.exists()
    assert all(p.name.startswith(".copy.db.importing-") for p in dest.iterdir())
    # the next import into that name sweeps what the killed one left, and finishes
    result = cristal(tmp_path / "unused.db", "import", str(big_export), str(target))
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in dest.iterdir()) == ["copy.db"]
