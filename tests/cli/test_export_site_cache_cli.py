"""``cristal export timeline --format html -o SITE``: --json says whether the export went on from the
folder's earlier one and how many pages it kept, the text line says so too, --full writes every page
again (jobs/site_cache.py; issue 20, the HTML export of the 1M campaign)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from cristal_events.cli import cli


def cristal(db: Path, *args: str):
    res = CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res


def site_json(db: Path, site: Path, *extra: str) -> dict:
    return json.loads(cristal(db, "export", "timeline", "--format", "html", "-o", str(site), "--json",
                              *extra).stdout)


def test_json_says_incremental_and_kept_and_full_writes_every_page(tmp_path):
    db, site = tmp_path / "c.db", tmp_path / "site"
    cristal(db, "init", "--name", "Brume", "--seed", "3")
    for night in ("La forêt", "Le gué"):
        cristal(db, "session", "start", "--title", night)
        cristal(db, "character", "create", f"p{len(night)}", "--race", "Humain", "--name", "Thor")
        cristal(db, "session", "end")
    first = site_json(db, site)
    assert first["incremental"] is False and first["kept"] == 0 and first["events"] > 0
    cristal(db, "session", "start", "--title", "La nuit suivante")
    cristal(db, "note", "Le MJ note la scène")
    again = site_json(db, site)
    assert again["incremental"] is True and again["kept"] >= 2
    assert again["events"] == first["events"] + 2
    full = site_json(db, site, "--full")
    assert full["incremental"] is False and full["kept"] == 0
    text = cristal(db, "export", "timeline", "--format", "html", "-o", str(site))
    # the same log as --full's: every page kept but the last (the new night's, one more than before)
    assert f"{again['kept'] + 1} session pages kept from the previous export." in text.stderr
    assert "pages kept" not in cristal(db, "export", "timeline", "--format", "html", "-o", str(site),
                                       "--full").stderr


def test_help_names_full_with_an_example():
    res = CliRunner().invoke(cli, ["export", "timeline", "--help"])
    assert res.exit_code == 0
    assert "--full" in res.output and "cristal export timeline --format html -o chronique --full" in res.output
