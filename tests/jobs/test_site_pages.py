"""The HTML site's pages and their links: the index holds the sessions' table and links to the
characters' list (``personnages.html``) and, once a die was rolled, to the dice page (``des.html``:
the GM's dice and the fairness report), so its size grows with the sessions (and who was at each),
not with a table of every character and the dice (issue 20: in the twelfth session, the 1M
generated campaign's 2,343 characters made a 2.43 MB index when it listed them)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from cristal_events.cli import cli

CHARACTERS = 30


def cristal(db: Path, *args: str):
    result = CliRunner().invoke(cli, ["--db", str(db), "--lang", "en", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def _site(db: Path, out: Path) -> dict[str, str]:
    cristal(db, "export", "timeline", "--format", "html", "-o", str(out))
    return {p.name: p.read_text() for p in out.iterdir() if p.suffix == ".html"}


def test_the_index_links_the_characters_list_which_links_each_character_and_back(tmp_path):
    db = tmp_path / "c.db"
    cristal(db, "init", str(db), "--name", "Table de test")
    cristal(db, "session", "start", "--title", "Recrues")
    for i in range(CHARACTERS):
        cristal(db, "character", "create", f"h{i}", "--race", "Humain", "--name", f"Héros {i}")
    site = _site(db, tmp_path / "site")

    index, listed = site["index.html"], site["personnages.html"]
    pages = sorted(name for name in site if name.startswith("personnage-"))
    assert len(pages) == CHARACTERS
    assert '<a href="personnages.html">Characters</a>' in index and "personnage-" not in index
    assert '<section id="characters">' not in index and "<svg" not in index and '<section id="sessions">' in index
    assert all(f'<a href="{name}">' in listed for name in pages)
    assert all('<a href="personnages.html">Characters</a>' in site[name] for name in pages)
    assert '<a href="index.html">' in listed
    # no die was rolled: no dice page, no link to one
    assert "des.html" not in site and "des.html" not in index

    cristal(db, "check", "technique", "h0", "Natation", "--difficulty", "10")
    again = _site(db, tmp_path / "site")
    assert '<a href="des.html">Dice</a>' in again["index.html"]
    assert '<section id="dice-fairness">' in again["des.html"] and '<a href="index.html">' in again["des.html"]
