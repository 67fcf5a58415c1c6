"""The HTML site's own walk (jobs/site_walk.py) and its second process (jobs/page.py export_site) write
the same pages as the generic walk, on every sample campaign (issue 20: the HTML export of the 1M
campaign; what the pages show is issue 18 item 5's)."""

from __future__ import annotations

import importlib
from pathlib import Path

import msgspec
import pytest

from cristal_events import i18n
from cristal_events.cli.export import _session_rows
from cristal_events.cli.script import load
from cristal_events.cli.script import run as run_script
from cristal_events.jobs import page, site_walk
from cristal_events.jobs.diff import diff, render_change
from cristal_events.jobs.outputs import output_folder
from cristal_events.service import Campaign

walk = importlib.import_module("cristal_events.jobs.walk")  # the module (jobs exports its function as walk)
SAMPLES = Path(__file__).resolve().parents[2] / "sample_campaigns"


@pytest.fixture(scope="module", params=sorted(SAMPLES.glob("*.toml")), ids=lambda p: p.stem)
def sample(request, tmp_path_factory):
    db = tmp_path_factory.mktemp(request.param.stem) / "c.db"
    run_script(load(request.param), db)
    return db


def test_the_site_walk_gives_the_generic_walks_changes_characters_and_lines(sample):
    with Campaign.open(sample, readonly=True) as camp:
        generic = list(walk.walk(camp))
        fast = list(site_walk.steps(camp))
    assert len(fast) == len(generic) > 20
    assert sum(len(s.changes) for s in fast) > 20  # the sample changes states: the comparison means something
    for g, f in zip(generic, fast):
        assert f.rec.position == g.rec.position
        assert f.changes == g.changes, g.rec.position
        assert f.characters == g.characters, g.rec.position
        assert f.told == g.told
        assert f.session == g.session


def test_the_state_diff_finds_changes_in_a_large_map_at_any_place():
    """Maps of at least site_walk's _LARGE keys are compared by halves: a change, an addition, a
    removal, several changes, equal-but-other objects and reordered keys all give diff.diff's answer."""
    base = {f"c{i}": {"pv": i, "items": [{"name": "Épée", "qty": 1}]} for i in range(300)}
    variants = []
    for i in (0, 17, 150, 299):
        v = dict(base)
        v[f"c{i}"] = {"pv": -1, "items": [{"name": "Épée", "qty": 2}]}
        variants.append(v)
    several = dict(base)
    for i in (3, 4, 200):
        several[f"c{i}"] = {"pv": 1000 + i, "items": []}
    added = {**base, "new": {"pv": 5, "items": []}}
    removed = {k: v for k, v in base.items() if k != "c40"}
    copies = {k: msgspec.json.decode(msgspec.json.encode(v)) for k, v in base.items()}  # equal, not the same
    reordered = dict(reversed(list(base.items())))
    reordered["c9"] = {"pv": 99, "items": []}
    for after in [*variants, several, added, removed, copies, reordered]:
        out: list = []
        site_walk._diff(base, after, ("characters",), out)
        assert out == diff(base, after, ("characters",))
    assert diff(base, variants[1], ())  # each variant differs


def test_the_usual_change_line_is_render_change_in_both_languages(sample):
    with Campaign.open(sample, readonly=True) as camp:
        changes = [c for s in site_walk.steps(camp) for c in s.changes]
    for lang in ("en", "fr"):
        with i18n.use(lang):
            line = page._ChangeLines()
            assert [line(c) for c in changes] == [render_change(c) for c in changes]
            assert line.count(1) == i18n.ngettext("{count} change of the state", "{count} changes of the state",
                                                  1).format(count=1)


def _site(db: Path, out: Path, **kw) -> dict[str, str]:
    with Campaign.open(db, readonly=True) as camp, output_folder(out) as emit:
        page.export_site(camp, emit, ledger=_session_rows(camp, None, None), **kw)
    return {p.name: p.read_text() for p in sorted(out.iterdir())}


def test_two_processes_write_the_same_site_as_one(sample, tmp_path, monkeypatch):
    monkeypatch.setattr(page, "PARALLEL_SITE_MIN", 0)
    with Campaign.open(sample, readonly=True) as camp:
        last = camp.store.last_position()
        split = site_walk.split_point(camp, 0, last, walk.sessions(camp))
        generic: dict[str, str] = {}

        def keep(name: str, html: str) -> None:
            generic[name] = html

        page.write_site(camp, walk.walk(camp), keep, ledger=_session_rows(camp, None, None))
    assert split is not None, "the sample has sessions to split at"
    one = _site(sample, tmp_path / "one", processes=1)
    real, forked = site_walk.fork, []
    monkeypatch.setattr(site_walk, "fork", lambda work: forked.append(work.__name__) or real(work))
    two = _site(sample, tmp_path / "two", processes=2)
    # a second process wrote the later sessions, another made the dice sections
    assert forked == ["later", "dice_sections"]
    assert two == one and '<section id="dice-fairness">' in two["des.html"]
    assert {k: v for k, v in one.items() if k.endswith(".html")} == {k: generic[k] + page_marker(k, one)
                                                                     for k in generic}
    # the pages on either side of the split link to each other
    _, before, after = split
    assert f'href="{after}"' in two[before] and f'href="{before}"' in two[after]


def page_marker(name: str, written: dict[str, str]) -> str:
    """The export's marker line that output_folder adds at the end of each page it writes."""
    return written[name][len(written[name].rstrip("\n").rsplit("\n", 1)[0]) + 1:]


def test_a_second_process_that_fails_leaves_its_sessions_to_the_first(sample, tmp_path, monkeypatch):
    monkeypatch.setattr(page, "PARALLEL_SITE_MIN", 0)
    one = _site(sample, tmp_path / "one", processes=1)

    real = site_walk.fork

    def failing(work):
        return real(lambda: 1 / 0)  # the child raises: it exits non-zero

    monkeypatch.setattr(site_walk, "fork", failing)
    assert _site(sample, tmp_path / "failed", processes=2) == one
    monkeypatch.setattr(site_walk, "fork", lambda work: None)  # no fork at all
    assert _site(sample, tmp_path / "nofork", processes=2) == one


def test_the_dice_sections_are_the_same_whichever_process_reads_the_later_dice(sample, tmp_path, monkeypatch):
    """The second process does not keep its sessions' dice records: the dice sections read them from
    the log, in a forked process of their own or, when that one fails, in this one."""
    monkeypatch.setattr(page, "PARALLEL_SITE_MIN", 0)
    one = _site(sample, tmp_path / "one", processes=1)
    real, kept = site_walk.fork, []

    def dice_fails(work):
        if work.__name__ == "dice_sections":
            return real(lambda: 1 / 0)
        return real(work)

    monkeypatch.setattr(site_walk, "fork", dice_fails)
    monkeypatch.setattr(page._Collector, "take", lambda self, later, real=page._Collector.take: kept.append(
        len(later["dice"])) or real(self, later))
    assert _site(sample, tmp_path / "dice-failed", processes=2) == one
    assert kept == [0]  # the second process handed its share back without a dice record
    assert '<section id="dice-fairness">' in one["des.html"]
