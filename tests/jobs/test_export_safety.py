"""Exports and ``cristal demo`` never destroy a file they did not write (issue 14, items 5 and 11)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from cristal_events import init_campaign, open_campaign
from cristal_events.cli import cli
from cristal_events.service import RecordNote

COMPAGNIE = Path(__file__).resolve().parents[2] / "sample_campaigns" / "compagnie_du_cristal.toml"


def cristal(db: Path | str, *args: str):
    return CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=False)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def listing(folder: Path) -> dict[str, str]:
    return {p.name: digest(p) for p in folder.iterdir() if p.is_file()}


@pytest.fixture
def camp_db(tmp_path):
    db = tmp_path / "taverne.db"
    camp = init_campaign(db, name="La Taverne", ruleset="cristal", seed=7)
    camp.start_session(title="Soir")
    camp.execute(RecordNote(text="On boit"))
    camp.end_session()
    camp.close()
    return db


@pytest.fixture
def camp_on(backend):
    """The same small campaign on each backend (an SQLite file, a PostgreSQL campaign): the exports' -o
    targets behave the same whatever holds the log."""
    camp = init_campaign(backend, name="La Taverne", ruleset="cristal", seed=7)
    camp.start_session(title="Soir")
    camp.execute(RecordNote(text="On boit"))
    camp.end_session()
    camp.close()
    return backend


def export(db: Path | str, fmt: str, out: str, *extra: str):
    return cristal(db, "export", "timeline", "--format", fmt, "-o", out, *extra)


# ----------------------------------------------------------------------------------- -o targets
def test_an_empty_output_name_is_one_sentence_and_writes_nothing(camp_on, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = listing(tmp_path)
    result = export(camp_on, "md", "")
    assert (result.exit_code, result.output) == (
        1, "Error: -o needs a file name (or leave it out to write to standard output); nothing was written.\n")
    assert listing(tmp_path) == before


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "md", "html"])
def test_the_campaign_itself_is_never_an_output(camp_db, fmt):
    before = digest(camp_db)
    for force in ((), ("--force",)):
        result = export(camp_db, fmt, str(camp_db), *force)
        assert (result.exit_code, result.output) == (
            1, f"Error: {camp_db} is the campaign being exported; an export never writes over it; "
               "nothing was written.\n")
    assert digest(camp_db) == before
    assert cristal(camp_db, "verify").exit_code == 0


def test_another_campaign_or_a_companion_file_is_never_an_output(camp_db, tmp_path):
    other = tmp_path / "autre.db"
    init_campaign(other, name="Autre", ruleset="cristal").close()
    before = digest(other)
    result = export(camp_db, "csv", str(other), "--force")
    assert (result.exit_code, result.output) == (
        1, f"Error: {other} is an SQLite database (a campaign?); an export never writes over one, even with "
           "--force; nothing was written.\n")
    assert digest(other) == before
    wal = Path(str(other) + "-wal")
    wal.write_bytes(b"")
    assert export(camp_db, "csv", str(wal), "--force").exit_code == 1
    result = export(camp_db, "csv", str(camp_db) + "-wal", "--force")
    assert (result.exit_code, result.output) == (
        1, f"Error: {camp_db}-wal belongs to the campaign being exported; nothing was written.\n")


@pytest.mark.parametrize("fmt, name", [("md", "notes.md"), ("csv", "budget.csv"), ("jsonl", "data.jsonl")])
def test_a_users_file_is_replaced_only_with_force(camp_on, tmp_path, fmt, name):
    mine = tmp_path / name
    mine.write_text("mes notes de MJ, à ne pas perdre\n")
    result = export(camp_on, fmt, str(mine))
    assert (result.exit_code, result.output) == (
        1, f"Error: {mine} exists and is not a previous {fmt} export; choose another name, or add --force to "
           "replace it; nothing was written.\n")
    assert mine.read_text() == "mes notes de MJ, à ne pas perdre\n"
    assert export(camp_on, fmt, str(mine), "--force").exit_code == 0
    assert "mes notes" not in mine.read_text()


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "md"])
def test_a_previous_export_of_the_same_format_is_replaced(camp_on, tmp_path, fmt):
    out = tmp_path / f"t.{fmt}"
    assert export(camp_on, fmt, str(out)).exit_code == 0
    first = out.read_text()
    camp = open_campaign(camp_on)
    camp.execute(RecordNote(text="Encore une"))
    camp.close()
    result = export(camp_on, fmt, str(out))
    assert result.exit_code == 0, result.output
    assert out.read_text() != first and "Encore une" in out.read_text()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(("t.", ".t."))) == [f"t.{fmt}"]


def test_an_export_of_another_format_is_not_replaced_without_force(camp_on, tmp_path):
    out = tmp_path / "chronique.md"
    assert export(camp_on, "md", str(out)).exit_code == 0
    assert export(camp_on, "csv", str(out)).exit_code == 1
    assert export(camp_on, "html", str(out)).exit_code == 1
    assert out.read_text().startswith("# La Taverne")


def test_an_empty_file_may_be_written(camp_on, tmp_path):
    out = tmp_path / "vide.md"
    out.touch()
    assert export(camp_on, "md", str(out)).exit_code == 0


def test_markdown_and_every_html_page_end_with_the_export_marker(camp_on, tmp_path):
    md, site = tmp_path / "t.md", tmp_path / "site"
    assert export(camp_on, "md", str(md)).exit_code == 0
    assert export(camp_on, "html", str(site)).exit_code == 0
    assert md.read_text().endswith("\n<!-- cristal-events export timeline md -->\n")
    pages = sorted(site.glob("*.html"))
    assert "index.html" in [p.name for p in pages] and len(pages) > 1
    for page in pages:
        assert page.read_text().startswith("<!DOCTYPE html>")
        assert page.read_text().endswith("<!-- cristal-events export timeline html -->\n")


# ------------------------------------------------------------------------------ the HTML site's folder
def test_html_refuses_a_folder_holding_other_files_even_with_force(camp_on, tmp_path):
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "index.html").write_text("<p>ma page</p>")
    for force in ((), ("--force",)):
        result = export(camp_on, "html", str(folder), *force)
        assert (result.exit_code, result.output) == (
            1, f"Error: {folder} is a folder that is neither empty nor a previous HTML export; choose a new or "
               "empty folder; nothing was written.\n")
    assert sorted(p.name for p in folder.iterdir()) == ["index.html"]
    assert (folder / "index.html").read_text() == "<p>ma page</p>"
    assert not [p for p in tmp_path.iterdir() if ".part-" in p.name]


def test_html_refuses_a_file_as_its_folder(camp_on, tmp_path):
    page = tmp_path / "t.html"
    page.write_text("<p>ma page</p>")
    result = export(camp_on, "html", str(page), "--force")
    assert (result.exit_code, result.output) == (
        1, f"Error: {page} is a file; an HTML export writes a folder (an index and a page per session): give -o "
           "a new or empty folder; nothing was written.\n")
    assert page.read_text() == "<p>ma page</p>"


def test_html_replaces_its_previous_export_and_leaves_a_users_files_alone(camp_on, tmp_path):
    site = tmp_path / "site"
    assert export(camp_on, "html", str(site)).exit_code == 0
    first = {p.name for p in site.iterdir()}
    assert ".cristal-export.json" in first and "index.html" in first
    (site / "notes.txt").write_text("à moi")
    camp = open_campaign(camp_on)
    camp.execute(RecordNote(text="Encore une"))
    camp.close()
    result = export(camp_on, "html", str(site))
    assert result.exit_code == 0, result.output
    assert (site / "notes.txt").read_text() == "à moi"
    assert "Encore une" in "".join(p.read_text() for p in site.glob("*.html"))
    assert not [p for p in tmp_path.iterdir() if ".part-" in p.name]


def test_html_never_replaces_a_file_it_did_not_write_in_its_folder(camp_on, tmp_path):
    site = tmp_path / "site"
    assert export(camp_on, "html", str(site)).exit_code == 0
    page = next(p for p in site.glob("session-*.html"))
    manifest = json.loads((site / ".cristal-export.json").read_text())
    manifest["files"].remove(page.name)  # as if the user had put a page of that name there himself
    (site / ".cristal-export.json").write_text(json.dumps(manifest))
    page.write_text("<p>la mienne</p>")
    result = export(camp_on, "html", str(site), "--force")
    assert (result.exit_code, result.output) == (
        1, f"Error: {page} was not written by an export; move it away or choose another folder; nothing was "
           "written.\n")
    assert page.read_text() == "<p>la mienne</p>"


def test_a_page_the_previous_export_wrote_and_this_one_does_not_is_removed(camp_on, tmp_path):
    site = tmp_path / "site"
    assert export(camp_on, "html", str(site)).exit_code == 0
    stale = site / "session-99.html"
    stale.write_text("<p>ancienne</p>\n<!-- cristal-events export timeline html -->\n")
    manifest = json.loads((site / ".cristal-export.json").read_text())
    (site / ".cristal-export.json").write_text(json.dumps({**manifest, "files": manifest["files"] + [stale.name,
                                                                                                "../t.md"]}))
    (tmp_path / "t.md").write_text("hors du dossier")
    assert export(camp_on, "html", str(site)).exit_code == 0
    assert not stale.exists()
    assert (tmp_path / "t.md").read_text() == "hors du dossier"  # a manifest never points outside its folder
    assert stale.name not in json.loads((site / ".cristal-export.json").read_text())["files"]


def test_a_users_part_file_is_not_clobbered(camp_on, tmp_path):
    """The file is written beside its name under a fresh hidden name (it once was NAME.part)."""
    part = tmp_path / "t.md.part"
    part.write_text("à moi")
    assert export(camp_on, "md", str(tmp_path / "t.md")).exit_code == 0
    assert part.read_text() == "à moi"
    assert sorted(p.name for p in tmp_path.iterdir() if ".md" in p.name) == ["t.md", "t.md.part"]


def test_a_missing_folder_or_a_folder_as_output_is_one_sentence(camp_on, tmp_path):
    result = export(camp_on, "md", str(tmp_path / "nulle" / "part.md"))
    assert (result.exit_code, result.output) == (
        1, f"Error: The folder {tmp_path / 'nulle'} does not exist; nothing was written.\n")
    assert not (tmp_path / "nulle").exists()


# ----------------------------------------------------------------------------------------- demo
def demo(folder: Path, *extra: str):
    return cristal(folder.parent / "unused.db", "demo", str(folder), "--sample", str(COMPAGNIE), *extra)


def test_demo_given_a_file_is_one_sentence_and_writes_nothing(tmp_path):
    target = tmp_path / "notes.txt"
    target.write_text("à moi")
    result = demo(target)
    assert (result.exit_code, result.output) == (
        1, f"Error: {target} is a file, not a folder; give demo a folder to build in; nothing was written.\n")
    assert target.read_text() == "à moi"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_demo_never_deletes_a_users_campaign_that_shares_the_samples_name(tmp_path, camp_db):
    folder = tmp_path / "demo"
    folder.mkdir()
    mine = folder / "compagnie_du_cristal.db"
    shutil.copy(camp_db, mine)
    before = digest(mine)
    result = demo(folder)
    assert (result.exit_code, result.output) == (
        1, f"Error: {mine} exists and was not built by cristal demo; move it away or give demo another folder; "
           "nothing was written.\n")
    assert digest(mine) == before
    assert sorted(p.name for p in folder.iterdir()) == ["compagnie_du_cristal.db"]


def test_demo_never_replaces_a_users_page_that_shares_the_samples_name(tmp_path):
    folder = tmp_path / "demo"
    folder.mkdir()
    page = folder / "compagnie_du_cristal.html"
    page.write_text("<p>ma page</p>")
    result = demo(folder)
    assert (result.exit_code, result.output) == (
        1, f"Error: {page} exists and is not a page cristal demo wrote; move it away or give demo another "
           "folder; nothing was written.\n")
    assert page.read_text() == "<p>ma page</p>"
    assert sorted(p.name for p in folder.iterdir()) == ["compagnie_du_cristal.html"]


def test_demo_replaces_its_own_campaign_but_not_one_put_in_its_place(tmp_path, camp_db):
    folder = tmp_path / "demo"
    assert demo(folder).exit_code == 0
    marks = json.loads((folder / ".cristal-demo.json").read_text())
    assert list(marks["campaigns"]) == ["compagnie_du_cristal.db"]
    assert demo(folder).exit_code == 0  # its own campaign (the id it marked) is replaced
    db = folder / "compagnie_du_cristal.db"
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    shutil.copy(camp_db, db)  # the user's own campaign now has the sample's name
    before = digest(db)
    result = demo(folder)
    assert result.exit_code == 1 and "was not built by cristal demo" in result.output
    assert digest(db) == before


def test_demo_after_its_campaign_was_deleted_by_hand_builds_again(tmp_path):
    """Only the .db removed by hand: its -wal/-shm are those of the demo's campaign, and are replaced."""
    folder = tmp_path / "demo"
    assert demo(folder).exit_code == 0
    db = folder / "compagnie_du_cristal.db"
    db.unlink()
    Path(str(db) + "-wal").write_bytes(b"")
    assert demo(folder).exit_code == 0
    assert cristal(db, "verify").exit_code == 0


def test_demo_refuses_the_leftovers_of_a_database_it_did_not_build(tmp_path):
    folder = tmp_path / "demo"
    folder.mkdir()
    wal = folder / "compagnie_du_cristal.db-wal"
    wal.write_bytes(b"pas a moi")
    result = demo(folder)
    assert (result.exit_code, result.output) == (
        1, f"Error: {wal} is left from another database; move it away or give demo another folder; "
           "nothing was written.\n")
    assert wal.read_bytes() == b"pas a moi"
