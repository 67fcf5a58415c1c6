"""The runner gives each event only to the projections that handle its class (``Projection.handles``):
the rows must be exactly those of folding every event through every projection."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cristal_events.projections import for_campaign, runner

from cristal_events import projections
from cristal_events.cli.script import load
from cristal_events.cli.script import run as run_script
from cristal_events.events import NoteRecorded
from cristal_events.rulesets.cristal import characters as C
from cristal_events.service import Campaign, RecordNote

SAMPLES = Path(__file__).resolve().parents[2] / "sample_campaigns"


def every_event_rows(camp: Campaign, p: Any) -> dict[str, list[tuple[Any, ...]]]:
    """The rows of ``p`` folded the plain way: evolve and appended called on every event of the log."""
    state = p.initial()
    out: dict[str, list[Any]] = {t: [] for t in p.tables}
    for rec in camp.store.read_all():
        state = p.evolve(state, rec)
        for table, rows in p.appended(state, rec).items():
            out[table].extend(rows)
    out.update(p.rows(state))
    return {t: normalized(p, t, rows) for t, rows in out.items()}


def normalized(p: Any, table: str, rows: list[Any]) -> list[tuple[Any, ...]]:
    cols = list(p.tables[table].columns)
    return sorted(tuple(map(runner._cell, runner._sequence(r, cols))) for r in rows)


def dispatched_rows(camp: Campaign, p: Any) -> dict[str, list[tuple[Any, ...]]]:
    return {t: normalized(p, t, rows) for t, rows in runner.expected_rows(camp, p).items()}


@pytest.fixture(scope="module", params=sorted(p.stem for p in SAMPLES.glob("*.toml")))
def sample(request, tmp_path_factory):
    db = tmp_path_factory.mktemp(request.param) / "c.db"
    run_script(load(SAMPLES / f"{request.param}.toml"), db)
    camp = Campaign.open(db, readonly=True)
    yield camp
    camp.close()


def test_dispatch_writes_the_rows_of_folding_every_event(sample):
    projs = for_campaign(sample)
    assert any(p.handles is not None for p in projs)  # the samples exercise the dispatch
    for p in projs:
        plain = every_event_rows(sample, type(p)(sample))
        assert dispatched_rows(sample, type(p)(sample)) == plain, p.name
        assert any(plain.values()), p.name


def test_a_projection_leaves_its_state_alone_for_an_event_it_does_not_handle(sample):
    note = next(iter(sample.store.read_all(type="note.recorded")), None)
    for p in for_campaign(sample):
        if p.handles is None:
            continue
        assert NoteRecorded not in p.handles, p.name
        if note is not None:
            state = p.initial()
            assert p.evolve(state, note) is state and not p.appended(state, note), p.name


def test_a_correction_reason_reaches_its_compensation_across_ignored_events(tmp_path):
    """The XP ledger ignores notes and gold, and still carries a correction's reason to the compensation
    right after it, and forgets it once an event it ignores came in between (as folding every event does)."""
    camp = projections.attach(Campaign.create(tmp_path / "c.db", name="C", ruleset="cristal", seed=5))
    camp.execute(C.CreateCharacter(id="ana", race="Humain"))
    award = camp.execute(C.AwardXp(characters=("ana",), amount=500, reason="Trolls"))[0].position
    camp.execute(C.ChangeGold(character="ana", amount=5, reason="loot"))
    camp.execute(RecordNote(text="between"))
    camp.correct(award, "typed 500 for 50", {"amount": 50})
    camp.execute(RecordNote(text="after"))
    camp.execute(C.AwardXp(characters=("ana",), amount=10, reason="Quest"))
    # a compensation appended by hand after an ignored event: no correction heads it any more
    camp.store.append("character:ana", [C.CharacterCorrected(character="ana", amends=award, field="xp", delta=5,
                                                             balance_after=65)], None)
    runner.catch_up(camp)
    rows = camp.store.conn.execute("SELECT kind, amount, reason, balance_after FROM xp_ledger ORDER BY position").fetchall()
    assert rows == [("award", 500, "Trolls", 500), ("correction", -450, "typed 500 for 50", 50),
                    ("award", 10, "Quest", 60), ("correction", 5, "", 65)]
    ledger = next(p for p in for_campaign(camp) if p.name == "cristal_ledger")
    assert dispatched_rows(camp, ledger) == every_event_rows(camp, ledger)
    assert runner.verify(camp) == []
    camp.close()


@pytest.mark.parametrize("ruleset", ["cristal", "illergan"])
def test_a_world_state_projection_derives_its_state_from_the_campaign_world(tmp_path, ruleset):
    """Each ``world_state`` read model defines ``state_of(world)``, and it gives the state its own fold
    reaches over the same events: the rows of both are the same, at the start and after commands."""
    camp = Campaign.create(tmp_path / "w.db", name="W", ruleset=ruleset, seed=2)
    if ruleset == "cristal":
        camp.execute(C.CreateCharacter(id="thor", race="Humain"))
        camp.execute(C.AwardXp(characters=("thor",), amount=60, reason="r"))
    camp.execute(RecordNote(text="une note"))
    found = [p for p in for_campaign(camp) if p.world_state]
    assert found, "every ruleset has read models that fold its whole state"
    for p in found:
        folded = p.initial()
        for rec in camp.store.read_all():
            folded = p.evolve(folded, rec)
        assert p.rows(p.state_of(camp.state())) == p.rows(folded)
        assert p.rows(p.state_of(camp.state_at(0))) == p.rows(p.initial())
    camp.close()
