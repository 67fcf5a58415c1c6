"""The read models a console session keeps: each line catches up only the rows it changed (the combat
rows of the fight it touched, ``CristalCombats.changed_rows``; the session it belongs to,
``Sessions.changed_rows``), and the tables end exactly as a full rebuild writes them."""

from __future__ import annotations

from console_helpers import play
from cristal_events.projections import runner
from cristal_events.projections.cristal_combats import CristalCombats
from cristal_events.projections.timeline import Sessions

from cristal_events.service import Campaign


def stored_and_rebuilt(db, projection=CristalCombats, table="cristal_combatants") -> tuple[list[tuple], list[tuple]]:
    columns = list(projection.state_tables[table].columns)
    camp = Campaign.open(db, readonly=True)
    try:
        stored = camp.store.table_rows(table, columns, list(projection.state_tables[table].pk))
        rows = runner.expected_rows(camp, projection(camp))[table]
        rebuilt = sorted(tuple(map(runner._cell, runner._sequence(r, columns))) for r in rows)
        return sorted(stored), rebuilt
    finally:
        camp.close()


def test_two_fights_lines_by_line_leave_the_rows_a_rebuild_writes(brigands_on):
    res = play(brigands_on, """\
combat start col --with lia,loup --it loup=4 --stat loup:DP=9 --stat loup:PV=10 --stat loup:ATT=2 --stat loup:DMG=1d6
combat start pont --with brok,ours --it ours=3 --stat ours:DP=5 --stat ours:PV=30 --stat ours:ATT=1 --stat ours:DMG=1d6
fight col
attack lia loup --weapon Arc --projectile Flèche --distance 10 15,4
fight pont
attack brok ours --weapon "Hache de combat" 11,5
damage lia 2 --reason "Une ronce"
combat end col
""")
    assert res.returncode == 0, res.stderr
    stored, rebuilt = stored_and_rebuilt(brigands_on)
    assert stored == rebuilt
    assert {(r[0], r[1]) for r in stored} == {("pont", "brok"), ("pont", "ours")}  # col ended: its rows gone
    assert [r[3] for r in stored if r[1] == "ours"] == [30 - 6]  # the ours's PV after brok's 6 damage


def test_sessions_opened_and_ended_line_by_line_leave_the_rows_a_rebuild_writes(brigands_on):
    res = play(brigands_on, """\
note 'entre deux sessions'
session start --title "Le retour"
note 'la brume'
damage lia 1 --reason "Une ronce"
session end
session start --title "Le pont"
note 'le pont'
""")
    assert res.returncode == 0, res.stderr
    stored, rebuilt = stored_and_rebuilt(brigands_on, Sessions, "sessions")
    assert stored == rebuilt
    assert [(r[0], r[1], r[6]) for r in stored] == [(1, "Le relais des bûcherons", 0), (2, "L'embuscade du gué", 0),
                                                    (3, "Le retour", 0), (4, "Le pont", 1)]


def test_after_a_console_fight_every_checkpoint_is_at_the_head_and_verify_finds_the_read_models_exact(brigands_on):
    """An attack leaves the XP ledger's state as it was: its checkpoint moves without its state written
    again, and the ledger still agrees with a rebuild."""
    from click.testing import CliRunner

    from cristal_events.cli import cli

    res = play(brigands_on, """\
combat start col --with lia,loup --it loup=4 --stat loup:DP=9 --stat loup:PV=10 --stat loup:ATT=2 --stat loup:DMG=1d6
attack lia loup --weapon Arc --projectile Flèche --distance 10 15,4
xp award lia 10 --reason "Le loup"
attack loup lia 2
""")
    assert res.returncode == 0, res.stderr
    camp = Campaign.open(brigands_on, readonly=True)
    try:
        last = camp.store.last_position()
        assert {n: camp.store.checkpoint_head(n)[1] for n in ("cristal_ledger", "sessions", "timeline")} == \
            dict.fromkeys(("cristal_ledger", "sessions", "timeline"), last)
    finally:
        camp.close()
    res = CliRunner().invoke(cli, ["--db", str(brigands_on), "verify"])
    assert res.exit_code == 0, res.output
