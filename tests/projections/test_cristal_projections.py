"""The cristal_sheets and xp_ledger read models: contents, corrections, rebuild = incremental (issue 4)."""

from __future__ import annotations

import json

import pytest
from cristal_events.projections import runner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cristal_events import projections
from cristal_events.errors import CristalError
from cristal_events.rulesets.cristal import characters as C
from cristal_events.service import Campaign

LEDGER_COLUMNS = ["position", "character", "session", "recorded_at", "actor", "kind", "amount", "what", "reason",
                  "cost_charged", "cost_required", "balance_after", "amends", "flags"]  # docs/architecture.md


@pytest.fixture
def camp(tmp_path):
    c = projections.attach(Campaign.create(tmp_path / "p.db", name="P", ruleset="cristal", seed=3))
    yield c
    c.close()


def rows(camp, sql):
    cur = camp.store.conn.execute(sql)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def table_dump(camp, table, order):
    return [tuple(r) for r in camp.store.conn.execute(f'SELECT * FROM "{table}" ORDER BY {order}')]


def test_xp_ledger_has_exactly_the_contract_columns(camp):
    camp.execute(C.CreateCharacter(id="x", race="Humain"))
    cols = [r[1] for r in camp.store.conn.execute("PRAGMA table_info(xp_ledger)")]
    assert cols == LEDGER_COLUMNS


def test_ledger_records_awards_spends_costs_and_a_correction(camp):
    camp.start_session("Arrivée")
    camp.execute(C.CreateCharacter(id="thor", race="Humain"))
    award = camp.execute(C.AwardXp(characters=("thor",), amount=600, reason="Goblins"))[0].position
    camp.execute(C.BuyLevel(character="thor", class_name="Guerrier", stat="FRC"))   # 100 (L538)
    camp.execute(C.BuyLevel(character="thor", class_name="Guerrier", stat="FRC"))   # 200
    camp.execute(C.BuyTechnique(character="thor", technique="Natation"))           # 20 (L782)
    camp.correct(award, "600 entered instead of 60", {"amount": 60})
    led = rows(camp, "SELECT * FROM xp_ledger ORDER BY position")
    assert [(r["kind"], r["amount"], r["cost_charged"], r["cost_required"], r["balance_after"]) for r in led] == [
        ("award", 600, None, None, 600),
        ("spend", -100, 100, 100, 500),
        ("spend", -200, 200, 200, 300),
        ("spend", -20, 20, 20, 280),
        ("correction", -540, None, None, -260),
    ]
    assert led[1]["what"] == "global level 1 (Guerrier 1, +1 FRC)" and led[0]["session"] == 1
    assert led[4]["amends"] == award and led[4]["reason"] == "600 entered instead of 60"
    assert json.loads(led[4]["flags"]) == ["negative_balance"]
    assert all(json.loads(r["flags"]) == [] for r in led[:4])
    # the original award is still in the log; the sheet shows the corrected XP
    assert camp.store.get(award).event.amount == 600
    sheet = rows(camp, "SELECT * FROM cristal_sheets WHERE id = 'thor'")[0]
    assert json.loads(sheet["variable"])["XP"] == -260


def test_sheet_rows_hold_the_issue_keys(camp):
    camp.execute(C.CreateCharacter(id="lia", race="Elfe", name="Lia", sex="F", gold=50))
    camp.execute(C.CreateCharacter(id="gim", race="Nain"))
    got = rows(camp, "SELECT * FROM cristal_sheets ORDER BY id")
    assert [r["id"] for r in got] == ["gim", "lia"]
    lia = json.loads(got[1]["sheet"])
    for key in ("id", "name", "race", "sex", "global_level", "alignment", "luck", "classes", "fixed", "senses",
                "stable", "variable", "techniques", "spells", "items", "gold"):
        assert key in lia
    assert set(lia["stable"]) >= {"DP", "DM", "ATT", "DMG", "CNC", "PVmax", "PMmax"}
    assert set(lia["variable"]) == {"PV", "PM", "XP", "IT"}
    assert (got[1]["race"], got[1]["gold"], json.loads(got[1]["stable"])["PMmax"]) == ("Elfe", 50, 12)  # (10+2), L556


def test_verify_and_rebuild_agree_after_commands(camp):
    camp.execute(C.CreateCharacter(id="x", race="Humain"))
    camp.execute(C.AwardXp(all=True, amount=500, reason="r"))
    camp.execute(C.AddItem(character="x", item="Épée longue"))
    camp.execute(C.EquipItem(character="x", item="Épée longue"))
    before = (table_dump(camp, "cristal_sheets", "id"), table_dump(camp, "xp_ledger", "position"))
    assert runner.verify(camp) == []
    runner.rebuild(camp)
    assert (table_dump(camp, "cristal_sheets", "id"), table_dump(camp, "xp_ledger", "position")) == before


# ------------------------------------------------------------------------------------ Hypothesis
IDS = ("a", "b", "c")
command = st.one_of(
    st.builds(C.CreateCharacter, id=st.sampled_from(IDS), race=st.sampled_from(["Humain", "Elfe", "Nain"])),
    st.builds(C.AwardXp, characters=st.tuples(st.sampled_from(IDS)), amount=st.integers(1, 900), reason=st.just("r")),
    st.builds(C.BuyLevel, character=st.sampled_from(IDS), class_name=st.sampled_from(["Guerrier", "Mage", "Voleur"]),
              stat=st.sampled_from(["FRC", "CON", "MAG"])),
    st.builds(C.BuyTechnique, character=st.sampled_from(IDS), technique=st.sampled_from(["Natation", "Forestier"])),
    st.builds(C.AddItem, character=st.sampled_from(IDS), item=st.sampled_from(["Épée longue", "Armure de cuir"])),
    st.builds(C.EquipItem, character=st.sampled_from(IDS), item=st.sampled_from(["Épée longue", "Armure de cuir"])),
    st.builds(C.Damage, character=st.sampled_from(IDS), amount=st.integers(1, 20), reason=st.just("r")),
    st.builds(C.Rest, characters=st.tuples(st.sampled_from(IDS)), days=st.integers(1, 3)),
    st.builds(C.ChangeGold, character=st.sampled_from(IDS), amount=st.integers(-50, 50), reason=st.just("r")),
    st.builds(C.AlterState, character=st.sampled_from(IDS), stat=st.just("CON"), delta=st.integers(-3, 3),
              reason=st.just("r")),
    st.tuples(st.just("correct"), st.integers(1, 40), st.integers(1, 900)),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(command, min_size=1, max_size=25))
def test_incremental_catch_up_equals_a_full_rebuild(tmp_path_factory, commands):
    path = tmp_path_factory.mktemp("h") / "h.db"
    camp = projections.attach(Campaign.create(path, name="H", ruleset="cristal", seed=11))
    try:
        for cmd in commands:
            try:
                if isinstance(cmd, tuple):
                    camp.correct(cmd[1], "typo", {"amount": cmd[2]})
                else:
                    camp.execute(cmd)
            except CristalError:
                pass  # a refused command appends nothing; the read models must still agree
        runner.catch_up(camp)  # builds the tables when every command was refused (no hook ran)
        assert runner.verify(camp) == []
        incremental = (table_dump(camp, "cristal_sheets", "id"), table_dump(camp, "xp_ledger", "position"))
        runner.rebuild(camp)
        assert (table_dump(camp, "cristal_sheets", "id"), table_dump(camp, "xp_ledger", "position")) == incremental
    finally:
        camp.close()


def test_a_catch_up_writes_only_the_sheets_the_command_touched(camp, monkeypatch):
    """The sheets table is brought to rows(state) by rewriting the characters the fold replaced
    (CristalSheets.changed_rows); a settings change rewrites every sheet. Either way it equals a rebuild."""
    from cristal_events.service import ChangeSetting

    for cid in ("a", "b", "c"):
        camp.execute(C.CreateCharacter(id=cid, race="Humain"))
    computed: list[str] = []
    real = C.sheet
    monkeypatch.setattr(C, "sheet", lambda ch, *a, **k: computed.append(ch.id) or real(ch, *a, **k))
    camp.execute(C.AwardXp(characters=("b",), amount=300, reason="r"))
    assert computed == ["b"]
    assert json.loads(rows(camp, "SELECT variable FROM cristal_sheets WHERE id = 'b'")[0]["variable"]) is not None
    computed.clear()
    camp.execute(ChangeSetting(key="regeneration_minimum_one", value=True, reason="house rule"))
    assert sorted(computed) == ["a", "b", "c"]
    incremental = table_dump(camp, "cristal_sheets", "id")
    assert runner.verify(camp) == []
    runner.rebuild(camp)
    assert table_dump(camp, "cristal_sheets", "id") == incremental


def test_rules_state_read_models_checkpoint_no_copy_of_the_state(camp):
    """The sheets and combats read models fold the ruleset's whole state (world_state): their checkpoint
    stores only the position, and a catch-up starts from the campaign's own state, in memory right
    after a command, else rebuilt from its snapshots; the tables still equal a rebuild."""
    camp.execute(C.CreateCharacter(id="thor", race="Humain"))
    camp.execute(C.AwardXp(characters=("thor",), amount=300, reason="r"))
    cps = dict(camp.store.conn.execute("SELECT name, state IS NULL FROM projection_checkpoints"))
    assert cps["cristal_sheets"] == 1 and cps["cristal_combats"] == 1
    assert cps["cristal_ledger"] == 0  # a small state of its own keeps being stored
    path = camp.store.path
    camp.close()
    other = Campaign.open(path)  # another process writes two commands, its read models not following
    other.execute(C.AwardXp(characters=("thor",), amount=40, reason="r"))
    other.execute(C.CreateCharacter(id="york", race="Elfe"))
    behind = other.store.last_position() - 2
    other.close()
    again = Campaign.open(path)
    asked: list[int] = []
    real = again.state_at
    again.state_at = lambda position: asked.append(position) or real(position)  # type: ignore[method-assign]
    runner.catch_up(again)
    assert asked == [behind]  # the checkpoint's position is not in memory: time travel, once for both
    sheets = {r["id"]: json.loads(r["variable"]) for r in rows(again, "SELECT id, variable FROM cristal_sheets")}
    assert sorted(sheets) == ["thor", "york"] and sheets["thor"]["XP"] == 340
    assert runner.verify(again) == []
    projections.attach(again)
    asked.clear()
    again.execute(C.AwardXp(characters=("york",), amount=10, reason="r"))
    assert asked == []  # right after a command, the state before it is in memory
    incremental = table_dump(again, "cristal_sheets", "id")
    runner.rebuild(again)
    assert table_dump(again, "cristal_sheets", "id") == incremental
    again.close()
