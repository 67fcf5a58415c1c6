"""A rebuild that splits the log for the read models folding the rules' state (combats, sheets): this
process folds them up to a snapshot, the second process from that snapshot's state on, beside the
sessions and the ledger. It writes exactly the rows, checkpoints and counts of a rebuild in one
process; a snapshot that is bound to the log but holds another state than the fold reaches there,
and a second process that fails, leave the rest to this process with the same result (issue 20, the
rebuild's lever: benchmarks/README.md, "Eighth session")."""

from __future__ import annotations

import shutil

import msgspec
import pytest
from cristal_events.projections import runner
from cristal_events.projections.cristal_combats import CristalCombats
from helpers import every_table as dump
from helpers import second_process_fails

from cristal_events import projections
from cristal_events.rulesets.cristal import characters as C
from cristal_events.rulesets.cristal import fights as F
from cristal_events.service import Campaign, RecordNote

STATS = {"PV": 8, "PVmax": 8, "REF": 2, "ATT": 4, "DP": 4, "DMG": 1}


def fight(camp, name, rounds):
    camp.execute(F.StartCombat(combat=name, fighters=("thor", "lya", f"gob-{name}"), stats={f"gob-{name}": STATS}))
    camp.execute(F.RollInitiative(combat=name))
    for _ in range(rounds):
        camp.execute(F.NextTurn(combat=name))
        actor = F.whose_turn(camp.state().rules, name)
        camp.execute(F.Attack(combat=name, actor=actor, target=f"gob-{name}" if actor != f"gob-{name}" else "thor"))
    camp.execute(F.EndCombat(combat=name))


def played(path):
    camp = projections.attach(Campaign.create(path, name="S", ruleset="cristal", seed=5))
    for n in range(4):
        camp.start_session(f"Soirée {n}")
        if n == 0:
            camp.execute(C.CreateCharacter(id="thor", race="Nain"))
            camp.execute(C.CreateCharacter(id="lya", race="Humain"))
        camp.execute(C.AwardXp(characters=("thor", "lya"), amount=400, reason=f"quête {n}"))
        if n < 2:
            camp.execute(C.BuyLevel(character="thor", class_name="Guerrier", stat="FRC"))
        fight(camp, f"combat-{n}", 3)
        if n == 2:  # a fight still open across the split and at the end
            camp.execute(F.StartCombat(combat="long", fighters=("thor", "gob-long"), stats={"gob-long": STATS}))
            camp.execute(F.RollInitiative(combat="long"))
        camp.execute(RecordNote(text=f"Note {n}"))
        camp.end_session()
    return camp



@pytest.fixture
def pair(tmp_path):
    camp = played(tmp_path / "a.db")
    # one snapshot in the middle of the log (a campaign this small keeps none of its own): where the split is
    last = camp.store.last_position()
    middle = camp.world_at(last // 2)
    assert camp.write_snapshot(middle)
    camp.close()
    shutil.copyfile(tmp_path / "a.db", tmp_path / "b.db")  # the same log, snapshot, event ids and times
    a, b = Campaign.open(tmp_path / "a.db"), Campaign.open(tmp_path / "b.db")
    yield a, b, middle.core.position
    a.close()
    b.close()


def two_processes(monkeypatch, on):
    monkeypatch.setattr(runner, "PARALLEL_REBUILD_MIN", 1 if on else 1 << 62)
    monkeypatch.setattr(runner, "_free_core", lambda: on)
    monkeypatch.setattr(runner, "SPLIT_AT", 0.6)


def watched(monkeypatch):
    """The slots handed to the second process, each as (read model, first position after which it folds)."""
    calls = []
    real = runner._fold_beside
    monkeypatch.setattr(runner, "_fold_beside",
                        lambda c, slots, last: calls.append([(s.projection.name, s.after) for s in slots])
                        or real(c, slots, last))
    return calls


def test_a_rebuild_split_at_a_snapshot_writes_what_one_process_writes(pair, monkeypatch):
    a, b, middle = pair
    calls = watched(monkeypatch)
    two_processes(monkeypatch, True)
    counts_two = runner.rebuild(a)
    two_processes(monkeypatch, False)
    counts_one = runner.rebuild(b)
    assert calls == [[("cristal_ledger", 0), ("sessions", 0), ("cristal_combats", middle), ("cristal_sheets", middle)]]
    assert counts_two == counts_one and set(counts_one.values()) == {a.store.last_position()}
    assert dump(a) == dump(b)
    assert a.store.conn.execute("SELECT count(*) FROM cristal_combat_log WHERE position > ?", (middle,)).fetchone()[0]
    assert a.store.conn.execute("SELECT count(*) FROM cristal_combat_log WHERE position <= ?", (middle,)).fetchone()[0]
    assert runner.verify(a) == []
    # and a command's catch-up goes on from the checkpoints the split wrote
    projections.attach(a).execute(C.AwardXp(characters=("lya",), amount=5, reason="après"))
    assert runner.verify(a) == []


def test_a_snapshot_unlike_the_fold_leaves_the_second_part_to_this_process(pair, monkeypatch):
    a, b, middle = pair
    # a snapshot bound to the log (its digest recomputed) but holding another state: thor's XP changed
    world = a.world_at(middle)
    thor = world.rules.characters["thor"]
    wrong = msgspec.structs.replace(world, rules=msgspec.structs.replace(
        world.rules, characters={**world.rules.characters, "thor": msgspec.structs.replace(thor, xp=thor.xp + 999)}))
    a.write_snapshot(wrong)
    a.close()
    a = Campaign.open(a.store.path)
    assert a.world_at(middle).rules.characters["thor"].xp == thor.xp + 999
    calls = watched(monkeypatch)
    two_processes(monkeypatch, True)
    counts_two = runner.rebuild(a)
    two_processes(monkeypatch, False)
    assert calls[0][-1] == ("cristal_sheets", middle)  # the split was tried from the wrong snapshot
    assert counts_two == runner.rebuild(b)
    assert dump(a)["cristal_sheets"] == dump(b)["cristal_sheets"]
    assert {k: v for k, v in dump(a).items() if k != "snapshots"} == {k: v for k, v in dump(b).items()
                                                                      if k != "snapshots"}
    assert runner.verify(a) == []
    a.close()


def test_a_failed_second_process_leaves_the_split_rebuild_to_the_first(pair, monkeypatch):
    a, b, _ = pair
    second_process_fails(monkeypatch)
    calls = watched(monkeypatch)
    two_processes(monkeypatch, True)
    counts = runner.rebuild(a)
    two_processes(monkeypatch, False)
    assert len(calls[0]) == 4
    assert counts == runner.rebuild(b)
    assert dump(a) == dump(b)
    assert runner.verify(a) == []


def test_no_usable_snapshot_in_the_share_keeps_the_rules_read_models_here(pair, monkeypatch):
    a, b, middle = pair
    calls = watched(monkeypatch)
    two_processes(monkeypatch, True)
    monkeypatch.setattr(runner, "SPLIT_AT", middle / a.store.last_position() / 3)  # the snapshot lies past it
    counts = runner.rebuild(a)
    assert calls == [[("cristal_ledger", 0), ("sessions", 0)]]
    two_processes(monkeypatch, False)
    assert counts == runner.rebuild(b)
    assert dump(a) == dump(b)


def test_a_row_past_64_bits_folded_in_the_second_process_is_skipped_as_in_one_process(pair, monkeypatch):
    # the second process sends a row of plain cells as it is; its integer past 64 bits (one an older
    # engine let into the log) makes the frame's encoder fail that process, and this one folds its
    # read models: the same rows and the same sentence as a rebuild in one process
    a, b, middle = pair
    real = CristalCombats.appended
    late = a.store.conn.execute("SELECT max(position) FROM cristal_combat_log").fetchone()[0]

    def unholdable(self, state, rec):
        out = real(self, state, rec)
        if rec.position == late:
            return {**out, "cristal_combat_log": [(*r[:3], 2**70) for r in out["cristal_combat_log"]]}
        return out

    monkeypatch.setattr(CristalCombats, "appended", unholdable)
    calls = watched(monkeypatch)
    two_processes(monkeypatch, True)
    found_two: list[str] = []
    counts = runner.rebuild(a, problems=found_two)
    assert calls[0][-1] == ("cristal_sheets", middle) and late > middle
    two_processes(monkeypatch, False)
    found_one: list[str] = []
    assert counts == runner.rebuild(b, problems=found_one)
    assert found_two == found_one and f"position {late}" in found_one[0]
    assert dump(a) == dump(b)


def test_a_stretch_folded_without_the_rules_decodes_only_the_payloads_its_read_models_read(pair):
    a, b, _ = pair
    by_name = {p.name: p for p in projections.for_campaign(a)}

    def slots(*names):
        return [runner._Slot(by_name[n], 0, by_name[n].initial()) for n in names]

    ledger = {cls.__struct_config__.tag for cls in by_name["cristal_ledger"].handles}
    assert runner._needed_types(a.store, slots("cristal_ledger", "sessions")) == ledger | {"session.started"}
    assert runner._needed_types(a.store, slots("cristal_ledger", "sessions", "cristal_sheets")) is None
    assert runner._needed_types(a.store, slots("timeline")) is None  # takes every event and says nothing
    # folded with most events undecoded, the sessions and the ledger hold what a fold of every event holds
    lazy = slots("cristal_ledger", "sessions")
    runner._fold(a.store, lazy, a.store.last_position())
    full = slots("cristal_ledger", "sessions")
    for rec in a.store.read_all(hashes=False):
        for s in full:
            if s.handles is None or type(rec.event) in s.handles:
                s.state = s.evolve(s.state, rec)
                for table, rows in (s.appended(s.state, rec) if s.appended else {}).items():
                    s.pending[table].extend(rows)
    assert [(s.state, s.pending) for s in lazy] == [(s.state, s.pending) for s in full]
    assert lazy[1].state.others  # several sessions, titled
    assert {s.title for s in lazy[1].state.others.values()} == {"Soirée 0", "Soirée 1", "Soirée 2"}
