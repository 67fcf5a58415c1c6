"""``Campaign.verify(receipts=..., snapshots=..., rolls=..., read_models=...)``: the checks the
``verify`` command prints, through the Python API (issue 15 item 7)."""

from __future__ import annotations

import sqlite3

import cristal_events.projections.runner  # noqa: F401  (projections.runner)

from cristal_events import Campaign, init_campaign, projections
from cristal_events.receipts import Receipt
from cristal_events.rulesets.cristal import characters as C


def _campaign(tmp_path):
    db = tmp_path / "v.db"
    camp = init_campaign(db, name="Vérif", ruleset="cristal", seed=5)
    projections.attach(camp)
    camp.start_session(title="Un")
    camp.execute(C.CreateCharacter(id="thor", race="Humain", roll_adjustments=True))  # engine dice
    camp.execute(C.AwardXp(characters=("thor",), amount=40, reason="quête"))
    camp.end_session()
    return db, camp


def test_a_sound_campaign_verifies_every_check_asked(tmp_path):
    db, camp = _campaign(tmp_path)
    last = camp.receipt()
    checked = camp.verify(receipts=[last], snapshots=True, rolls=True, read_models=projections.runner.verify)
    assert checked.ok and checked.problems == [] and checked.first_bad_position is None
    assert checked.events == camp.store.last_position() == checked.chain.events
    assert checked.receipts == {"checked": 1, "problems": []}
    assert checked.snapshots is not None and checked.snapshots["problems"] == []
    assert checked.rolls is not None and checked.rolls.checked > 0 and checked.rolls.problems == []
    plain = camp.verify()  # the chain alone: no further check was asked
    assert plain.ok and plain.receipts is None and plain.snapshots is None and plain.rolls is None
    camp.close()


def test_each_check_adds_its_problems_after_the_chain(tmp_path):
    db, camp = _campaign(tmp_path)
    camp.close()
    with sqlite3.connect(db) as conn:  # a read model edited by hand: the log itself is intact
        conn.execute("UPDATE xp_ledger SET amount = 400")
    camp = Campaign.open(db, readonly=True)
    wrong = Receipt(2, "0" * 64)
    checked = camp.verify(receipts=[wrong], read_models=projections.runner.verify)
    assert checked.chain.ok and not checked.ok
    assert checked.problems[-1] == "read model cristal_ledger (table xp_ledger) differs from a rebuild of the log"
    assert checked.receipts is not None and checked.receipts["problems"] == checked.problems[:1]
    assert checked.first_bad_position == 2  # the receipt's position: the chain named none
    assert camp.verify().ok  # the chain alone does not look at the read models
    camp.close()
