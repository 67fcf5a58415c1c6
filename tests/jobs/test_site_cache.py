"""The HTML site's cache (jobs/site_cache.py): an export into the folder of an earlier one goes on
from it, and every file is the same bytes as a whole (cold) export of the same log; any check that
fails (a tampered or foreign manifest, an edited page, another language) gives a whole export
(issue 20: the HTML export of the 1M campaign)."""

from __future__ import annotations

import shutil
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from cristal_events import i18n
from cristal_events.cli import cli
from cristal_events.cli.export import _session_rows
from cristal_events.cli.script import load
from cristal_events.cli.script import run as run_script
from cristal_events.errors import CristalError
from cristal_events.jobs import page, site_cache
from cristal_events.service import Campaign

SAMPLES = Path(__file__).resolve().parents[2] / "sample_campaigns"
CACHE = site_cache.CACHE_FILE


def cristal(db: Path, *args: str) -> None:
    res = CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=False)
    assert res.exit_code == 0, res.output


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "c.db"
    run_script(load(SAMPLES / "compagnie_du_cristal.toml"), path)
    return path


def export(db: Path, folder: Path, *, full: bool = False, lang: str = "en",
           processes: int | None = 1) -> site_cache.Result:
    with i18n.use(lang), Campaign.open(db, readonly=True) as camp:
        _n, result = site_cache.export_folder(camp, folder, ledger=_session_rows(camp, None, None), full=full,
                                              processes=processes)
    return result


def files(folder: Path) -> dict[str, bytes]:
    """Every file of a site but its cache (which holds the pages' times), by name."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.name != CACHE}


def cold(db: Path, folder: Path, lang: str = "en") -> dict[str, bytes]:
    shutil.rmtree(folder, ignore_errors=True)
    assert not export(db, folder, lang=lang).incremental
    return files(folder)


def a_night(db: Path, *, end: bool = True, title: str = "La nuit suivante") -> None:
    """A game night through the real commands: a session, wounds, gold, a rest, a note."""
    cristal(db, "session", "start", "--title", title)
    more(db)
    if end:
        cristal(db, "session", "end")


def more(db: Path) -> None:
    cristal(db, "damage", "thor", "2", "--reason", "Une chute")
    cristal(db, "gold", "xar", "+7", "--reason", "Un pourboire")
    cristal(db, "note", "Le MJ note la scène")
    cristal(db, "rest", "--all", "--days", "1")


def test_an_export_after_a_night_is_the_whole_exports_bytes_and_walks_only_the_new_pages(db, tmp_path,
                                                                                        monkeypatch):
    site = tmp_path / "site"
    first = export(db, site)
    assert not first.incremental and first.manifest is not None and (site / CACHE).is_file()
    pages_before = len(first.manifest.pages)
    a_night(db, end=False)  # a night left open: its page grows at the next export
    walked: list[int] = []
    real = page.site_walk.steps

    def steps(camp, *, after=0, **kw):
        walked.append(after)
        return real(camp, after=after, **kw)

    monkeypatch.setattr(page.site_walk, "steps", steps)
    again = export(db, site)
    assert again.incremental and again.kept == pages_before - 1
    assert walked == [first.manifest.pages[-1].first - 1]  # the walk starts at the last kept page's end
    monkeypatch.setattr(page.site_walk, "steps", real)
    assert files(site) == cold(db, tmp_path / "cold")
    more(db)  # the open session grows
    cristal(db, "session", "end")
    grown = export(db, site)
    assert grown.incremental and grown.kept == pages_before  # the night before is now kept
    assert files(site) == cold(db, tmp_path / "cold")
    a_night(db, title="Encore une")
    assert export(db, site).incremental
    assert files(site) == cold(db, tmp_path / "cold")


def test_the_same_log_exported_again_keeps_every_page_but_the_last(db, tmp_path):
    site = tmp_path / "site"
    export(db, site)
    before = files(site)
    again = export(db, site)
    assert again.incremental and again.manifest is not None and again.kept == len(again.manifest.pages) - 1
    assert files(site) == before


@pytest.mark.parametrize("damage", ["garbage", "empty", "truncated", "a folder"])
def test_a_manifest_that_does_not_decode_gives_a_whole_export(db, tmp_path, damage):
    site = tmp_path / "site"
    export(db, site)
    a_night(db)
    target = site / CACHE
    raw = target.read_bytes()
    target.unlink()
    if damage == "a folder":
        target.mkdir()
    else:
        target.write_bytes({"garbage": b"\x93\x01\x02\xff not a manifest", "empty": b"",
                            "truncated": raw[: len(raw) // 2]}[damage])
    if damage == "a folder":  # the folder's cache cannot be replaced: the export says so, the pages stay
        with pytest.raises(CristalError, match="Cannot write"):
            export(db, site)
        assert files(site)["index.html"]  # nothing moved: the earlier pages are there
        return
    assert not export(db, site).incremental
    assert files(site) == cold(db, tmp_path / "cold")


def _edit_manifest(site: Path, change) -> None:
    m = msgspec.msgpack.decode((site / CACHE).read_bytes(), type=site_cache.Manifest)
    (site / CACHE).write_bytes(msgspec.msgpack.encode(change(m)))


@pytest.mark.parametrize("change", [
    lambda m: msgspec.structs.replace(m, campaign="another-campaign"),
    lambda m: msgspec.structs.replace(m, site_format=m.site_format + 1),
    lambda m: msgspec.structs.replace(m, package="0.0.1"),
    lambda m: msgspec.structs.replace(m, code="another code"),
    lambda m: msgspec.structs.replace(m, whole=False),
    lambda m: msgspec.structs.replace(m, pages=[*m.pages[:-1], msgspec.structs.replace(m.pages[-1], hash="0" * 64)]),
    lambda m: msgspec.structs.replace(m, pages=[msgspec.structs.replace(m.pages[0], size=m.pages[0].size + 1),
                                                *m.pages[1:]]),
    lambda m: msgspec.structs.replace(m, trades=[]),
], ids=["campaign", "format", "package", "code", "not-whole", "row-hash", "file-size", "ledger"])
def test_a_manifest_that_does_not_match_gives_a_whole_export(db, tmp_path, change):
    site = tmp_path / "site"
    export(db, site)
    a_night(db)
    _edit_manifest(site, change)
    assert not export(db, site).incremental
    assert files(site) == cold(db, tmp_path / "cold")


def test_names_from_a_manifest_never_reach_outside_the_folder(db, tmp_path):
    """A manifest naming files the export would not name for those sessions (outside the folder, a
    file of the user's) is not trusted: a whole export, and those files are left as they were."""
    site = tmp_path / "site"
    export(db, site)
    a_night(db)
    outside = tmp_path / "outside.html"
    outside.write_text("mine")
    (site / "mine.html").write_text("mine too")  # not the export's: never listed, never removed
    for name in ("../outside.html", "mine.html", str(outside)):
        _edit_manifest(site, lambda m, name=name: msgspec.structs.replace(
            m, pages=[msgspec.structs.replace(m.pages[0], file=name), *m.pages[1:]]))
        assert not export(db, site).incremental
        assert outside.read_text() == "mine" and (site / "mine.html").read_text() == "mine too"
    assert {k: v for k, v in files(site).items() if k != "mine.html"} == cold(db, tmp_path / "cold")


def test_an_edited_page_is_written_again(db, tmp_path):
    site = tmp_path / "site"
    m = export(db, site).manifest
    assert m is not None
    kept = site / m.pages[0].file
    kept.write_bytes(kept.read_bytes().replace(b"</body>", b"<p>mon ajout</p></body>"))
    a_night(db)
    assert not export(db, site).incremental
    assert files(site) == cold(db, tmp_path / "cold")
    assert b"mon ajout" not in kept.read_bytes()


def test_a_page_replaced_by_a_link_is_written_again(db, tmp_path):
    site = tmp_path / "site"
    m = export(db, site).manifest
    assert m is not None
    kept = site / m.pages[0].file
    copy = tmp_path / "copy.html"
    copy.write_bytes(kept.read_bytes())
    kept.unlink()
    kept.symlink_to(copy)
    assert not export(db, site).incremental
    assert not kept.is_symlink() and copy.read_bytes() == kept.read_bytes()


def test_another_campaigns_manifest_gives_a_whole_export(db, tmp_path):
    other = tmp_path / "other.db"
    run_script(load(SAMPLES / "brigands_de_la_foret.toml"), other)
    export(other, tmp_path / "other-site")
    site = tmp_path / "site"
    export(db, site)
    shutil.copyfile(tmp_path / "other-site" / CACHE, site / CACHE)
    a_night(db)
    assert not export(db, site).incremental
    assert files(site) == cold(db, tmp_path / "cold")


def test_another_language_gives_a_whole_export_in_that_language(db, tmp_path):
    site = tmp_path / "site"
    export(db, site, lang="en")
    a_night(db)
    assert not export(db, site, lang="fr").incremental
    assert files(site) == cold(db, tmp_path / "cold", lang="fr")
    a_night(db, title="Une autre")
    assert export(db, site, lang="fr").incremental
    assert files(site) == cold(db, tmp_path / "cold", lang="fr")


def test_full_forces_a_whole_export(db, tmp_path):
    site = tmp_path / "site"
    export(db, site)
    a_night(db)
    assert not export(db, site, full=True).incremental
    assert files(site) == cold(db, tmp_path / "cold")
    assert export(db, site).incremental  # and writes the cache for the next one


def test_a_part_of_the_campaign_forgets_the_cache(db, tmp_path):
    """A --session or --character site is always written whole, and the folder's cache is removed (it
    no longer describes the pages there)."""
    site = tmp_path / "site"
    export(db, site)
    res = CliRunner().invoke(cli, ["--db", str(db), "export", "timeline", "--format", "html", "-o", str(site),
                                   "--session", "1", "--json"], catch_exceptions=False)
    assert res.exit_code == 0 and '"incremental":false' in res.stdout
    assert not (site / CACHE).exists()
    assert not export(db, site).incremental


def test_two_processes_and_a_cache_write_the_same_site(db, tmp_path, monkeypatch):
    """The last page written by the second process: the summary at its start is the first's and the
    second's together, and the next export from it is the same bytes."""
    monkeypatch.setattr(page, "PARALLEL_SITE_MIN", 0)
    site = tmp_path / "site"
    forked: list[str] = []
    real = page.site_walk.fork
    monkeypatch.setattr(page.site_walk, "fork", lambda work: forked.append(work.__name__) or real(work))
    two = export(db, site, processes=2)
    # a second process walked the later sessions, another made the dice sections
    assert forked == ["later", "dice_sections"] and two.manifest is not None
    one = export(db, tmp_path / "one", processes=1)
    assert one.manifest is not None
    assert msgspec.msgpack.encode(two.manifest.boundary) == msgspec.msgpack.encode(one.manifest.boundary)
    for title in ("Une", "Deux", "Trois"):  # enough sessions after the cut for the walk to be split again
        a_night(db, title=title)
    again = export(db, site, processes=2)
    assert again.incremental and forked == ["later", "dice_sections"] * 2  # after the kept pages too
    assert files(site) == cold(db, tmp_path / "cold")


def test_a_character_page_made_of_the_same_material_is_kept_and_an_edited_one_written_again(db, tmp_path):
    site = tmp_path / "site"
    m = export(db, site).manifest
    assert m is not None and len(m.characters) >= 3
    by_file = {c.file: c for c in m.characters}
    pages = {p.name: p.stat() for p in site.glob("personnage-*.html")}
    xar = next(f for f in pages if ">Xar</h1>" in (site / f).read_text())
    other = next(f for f in pages if f != xar and ">Thor</h1>" not in (site / f).read_text())
    (site / other).write_text((site / other).read_text().replace("</body>", "<p>à moi</p></body>"))
    cristal(db, "session", "start", "--title", "Xar seul")
    cristal(db, "gold", "xar", "+7", "--reason", "Un pourboire")
    cristal(db, "damage", "xar", "1", "--reason", "Une ronce")
    cristal(db, "session", "end")
    again = export(db, site)
    assert again.incremental and again.manifest is not None
    now = {c.file: c for c in again.manifest.characters}
    assert now[xar].digest != by_file[xar].digest  # Xar's PV changed: his page is written again
    assert "à moi" not in (site / other).read_text()  # an edited page is written again
    untouched = [f for f in pages if f not in (xar, other) and now[f].digest == by_file[f].digest]
    assert untouched and all((site / f).stat().st_mtime_ns == pages[f].st_mtime_ns for f in untouched)
    assert files(site) == cold(db, tmp_path / "cold")


def test_a_new_character_before_the_others_moves_their_pages_and_the_site_stays_a_whole_exports(db, tmp_path):
    site = tmp_path / "site"
    export(db, site)
    cristal(db, "session", "start", "--title", "Une recrue")
    cristal(db, "character", "create", "aaron", "--race", "Humain", "--name", "Aaron")  # first by name
    cristal(db, "session", "end")
    assert export(db, site).incremental
    assert files(site) == cold(db, tmp_path / "cold")


def test_a_chart_finds_its_marks_by_bisection_with_the_same_bytes():
    """svg_chart with the marks' positions (the site's character pages) draws what it draws without."""
    import random

    rng = random.Random(5)
    for _ in range(300):
        marks = []
        position = 1
        for n in range(1, rng.randint(0, 90)):
            position += rng.randint(1, 40)
            marks.append((n, position))
        points = sorted({(rng.randint(1, position + 50), rng.randint(-5, 60)) for _ in range(rng.randint(2, 30))})
        starts = [p for _n, p in marks]
        assert page.svg_chart("XP", points, marks=marks, starts=starts) == page.svg_chart("XP", points, marks=marks)
    assert page._ascending([3, 1]) is None and page._ascending([1, 1, 4]) == [1, 1, 4]


def test_the_dice_records_read_from_the_log_are_those_the_walk_keeps(db):
    """A warm export reads the dice records of the kept pages from the log (each payload decoded
    once): the same records, field for field, as the walk's collector keeps."""
    with Campaign.open(db, readonly=True) as camp:
        end = camp.store.last_position()
        walked = page._Collector(camp, [])
        for s in page.site_walk.steps(camp):
            if s.rec.type == "dice.rolled":
                walked.dice.append(walked._kept(s.rec))
            elif s.rec.type in page._DICE_TYPES:
                walked.dice.append(s.rec)
        read = page._Collector(camp, [])._dice_between(0, end, camp.store)
        middle = walked.dice[len(walked.dice) // 2].position  # a second process's share: after a cut
        later = page._Collector(camp, [])._dice_between(middle, end, camp.store)
    encode = msgspec.msgpack.Encoder(enc_hook=str).encode
    assert len(read) == len(walked.dice) >= 5 and encode(read) == encode(walked.dice)
    assert 0 < len(later) < len(read) and encode(later) == encode([r for r in walked.dice if r.position > middle])


def test_the_code_fingerprint_changes_with_a_file_of_the_package(tmp_path, monkeypatch):
    """Any change to the code, a translation or a table the pages come from gives a whole export."""
    import sys

    pkg = tmp_path / "fakerules"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("X = 1\n")
    (pkg / "narration.json").write_text('{"a": 1}')
    monkeypatch.syspath_prepend(str(tmp_path))
    first = site_cache.code_fingerprint.__wrapped__("fakerules")
    assert first == site_cache.code_fingerprint.__wrapped__("fakerules")
    (pkg / "narration.json").write_text('{"a": 2}')
    assert site_cache.code_fingerprint.__wrapped__("fakerules") != first
    sys.modules.pop("fakerules", None)
