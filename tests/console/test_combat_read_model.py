"""The fight read model a console session keeps: each line catches up the combat rows of the fight it
touched only (``CristalCombats.changed_rows``), and the table ends exactly as a full rebuild writes it."""

from __future__ import annotations

from console_helpers import play
from cristal_events.projections import runner
from cristal_events.projections.cristal_combats import CristalCombats

from cristal_events.service import Campaign

COLUMNS = list(CristalCombats.state_tables["cristal_combatants"].columns)


def stored_and_rebuilt(db) -> tuple[list[tuple], list[tuple]]:
    camp = Campaign.open(db, readonly=True)
    try:
        stored = camp.store.table_rows("cristal_combatants", COLUMNS, ("combat", "fighter"))
        p = CristalCombats(camp)
        rows = runner.expected_rows(camp, p)["cristal_combatants"]
        rebuilt = sorted(tuple(map(runner._cell, runner._sequence(r, COLUMNS))) for r in rows)
        return sorted(stored), rebuilt
    finally:
        camp.close()


def test_two_fights_lines_by_line_leave_the_rows_a_rebuild_writes(brigands):
    res = play(brigands, """\
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
    stored, rebuilt = stored_and_rebuilt(brigands)
    assert stored == rebuilt
    assert {(r[0], r[1]) for r in stored} == {("pont", "brok"), ("pont", "ours")}  # col ended: its rows gone
    assert [r[3] for r in stored if r[1] == "ours"] == [30 - 6]  # the ours's PV after brok's 6 damage
