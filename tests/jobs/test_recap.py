"""Recaps in two views (cristal recap), as a table uses them: the players' view never shows a private
note or a foe's numbers, the GM's has everything, and the Markdown vault links only to notes it wrote
and never writes over one it did not."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner
from helpers import one_error
from pgcluster import module_target

from cristal_events.cli import cli
from cristal_events.cli.script import load
from cristal_events.cli.script import run as run_script
from cristal_events.events import NoteRecorded
from cristal_events.jobs.recap import mask_numbers, player_characters
from cristal_events.jobs.vault import OWNER_KEY, front_matter

SAMPLES = Path(__file__).resolve().parents[2] / "sample_campaigns"
SECRET = "SECRET-TAZ est le frère de York"
OGRE_PV, OGRE_PV_AFTER, OGRE_DP = "437", "431", "11"


def shows(number: str, text: str) -> bool:
    """``number`` standing alone in ``text`` (not inside a hash, a receipt or an id)."""
    return re.search(rf"(?<![\w]){number}(?![\w])", text) is not None


def cristal(db, *args):
    return CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=False)


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def crypt(request, tmp_path_factory):
    """The Compagnie sample and a fourth session: a private note, a public one, Thor against an ogre
    the game master describes by his numbers (PV 437); on each backend."""
    with module_target(request, tmp_path_factory.mktemp("recap"), "compagnie") as db:
        yield _crypt(db)


def _crypt(db):
    run_script(load(SAMPLES / "compagnie_du_cristal.toml"), db)
    for args in (["session", "start", "--title", "La crypte", "--date", "12 Floréal"],
                 ["note", SECRET, "--private"], ["note", "La crypte sent le soufre"],
                 ["combat", "start", "crypte", "--with", "thor", "--with", "ogre", "--stat", "ogre:DP=11",
                  "--stat", f"ogre:PV={OGRE_PV}", "--stat", "ogre:ATT=9", "--it", "ogre=3"],
                 ["combat", "attack", "crypte", "thor", "ogre", "--weapon", "Épée longue", "--dice", "14,5"],
                 ["combat", "end", "crypte"], ["session", "end"]):
        res = cristal(db, *args)
        assert res.exit_code == 0, res.output
    return db


def test_a_private_note_is_recorded_as_such_and_old_notes_decode_public(crypt):
    position = json.loads(cristal(crypt, "note", "x", "--private", "--json").output)["position"]
    logged = [json.loads(line) for line in cristal(crypt, "log", "--json").output.splitlines()]
    assert next(r for r in logged if r["position"] == position)["payload"]["private"] is True
    old = msgspec.json.decode(b'{"text": "une note d\'avant", "topic": ""}', type=NoteRecorded)
    assert old.private is False


@pytest.mark.french  # the recap's texts are read in French, as the table writes them
def test_the_players_view_hides_private_notes_and_the_foes_numbers(crypt):
    players = cristal(crypt, "recap", "--session", "4", "--view", "players").output
    gm = cristal(crypt, "recap", "--session", "4", "--view", "gm").output
    assert SECRET not in players and "SECRET" not in players
    for number in (OGRE_PV, OGRE_PV_AFTER):
        assert not shows(number, players)
        assert shows(number, gm)
    assert "La crypte sent le soufre" in players  # a public note stays
    assert "Adversaires : Ogre\n" in players and "Adversaires : Ogre (DP 11, PV 437, ATT 9)" in gm
    assert "#85    Ogre : PV … → … (attaque de thor)" in players
    assert "#85    Ogre : PV 437 → 431 (attaque de thor)" in gm
    assert f"Note privée du MJ : {SECRET}" in gm
    assert "1 note(s) privée(s)" in players
    # a command that involves no foe keeps its numbers: the session's receipt, Thor's sheet
    assert "Thor (joué par Alice ; PV 14, PM 6, XP 290)" in players

    data = json.loads(cristal(crypt, "recap", "--session", "4", "--view", "players", "--json").output)
    text = json.dumps(data, ensure_ascii=False)
    assert SECRET not in text and not shows(OGRE_PV, text) and not shows(OGRE_PV_AFTER, text)
    ogre = next(c for c in data["characters"] if c["id"] == "ogre")
    assert (ogre["foe"], ogre["numbers"]) == (True, {})
    assert data["left_out"] == {"private_notes": 1, "sealed": 0, "masked": 4}


def test_a_sealed_roll_is_left_out_of_the_players_view_through_the_one_hook(crypt, monkeypatch):
    from cristal_events.jobs import dice_report

    monkeypatch.setattr(dice_report, "sealed_positions", lambda records: {86})  # Thor's dice against the ogre
    players = json.loads(cristal(crypt, "recap", "--session", "4", "--view", "players", "--json").output)
    gm = json.loads(cristal(crypt, "recap", "--session", "4", "--view", "gm", "--json").output)
    assert 86 not in [e["position"] for e in players["events"]] and players["left_out"]["sealed"] == 1
    assert 86 in [e["position"] for e in gm["events"]]


@pytest.mark.french
def test_a_creature_is_a_foe_in_the_illergan_sample(tmp_path):
    db = tmp_path / "gue.db"
    run_script(load(SAMPLES / "illergan_gue_des_loups.toml"), db)
    data = json.loads(cristal(db, "recap", "--session", "1", "--view", "players", "--json").output)
    foes = {c["id"] for c in data["characters"] if c["foe"]}
    assert foes == {"loup", "chef"}
    told = {e["position"]: e["text"] for e in data["events"]}
    assert told[12] == "Créature Loup gris : PV …, RN … %"  # the creature's PV 35
    assert "Lysa" in told[25] and "Dé100 50" in told[25]  # a spell of a PC on no foe keeps its numbers
    gm = json.loads(cristal(db, "recap", "--session", "1", "--view", "gm", "--json").output)
    assert {e["position"]: e["text"] for e in gm["events"]}[12] == "Créature Loup gris : PV 35, RN 0 %"


def test_who_is_a_player_character():
    class C:
        def __init__(self, player="", kind="hero"):
            self.player, self.kind = player, kind

    assert player_characters({"thor": C("Alice"), "npc": C(), "loup": C(kind="creature")}) == {"thor"}
    # nobody names a player: every character but the creatures
    assert player_characters({"thor": C(), "loup": C(kind="creature")}) == {"thor"}
    assert mask_numbers("Orc2 : PV 12 → -3, 1d20 = 7 (50%)", keep=["Orc2"]) == "Orc2 : PV … → …, 1d20 = … (…%)"


WIKILINK = re.compile(r"\[\[([^\]|]+)(?:\|[^\]]*)?\]\]")


def vault_links(root: Path) -> dict[str, set[str]]:
    return {p.name: set(WIKILINK.findall(p.read_text())) for p in root.glob("*.md")}


def test_the_vault_links_resolve_to_notes_it_wrote(crypt, tmp_path):
    root = tmp_path / "vault"
    for n in (1, 3, 4):
        res = cristal(crypt, "recap", "--session", str(n), "--view", "players", "--format", "md", "--out", str(root))
        assert res.exit_code == 0, res.output
    names = sorted(p.name for p in root.glob("*.md"))
    assert "la-crypte--s4.md" in names and "l-auberge-du-pendu--s1.md" in names
    assert {"thor--thor.md", "ogre--ogre.md", "york--york.md", "crypte--f83.md", "pendu--f20.md"} <= set(names)
    links = vault_links(root)
    assert links["la-crypte--s4.md"] == {"thor--thor", "ogre--ogre", "crypte--f83"}
    for name, targets in links.items():
        for stem in targets:
            meta = front_matter(root / f"{stem}.md")
            assert meta is not None and meta[OWNER_KEY].endswith("/players"), (name, stem)
    # Thor's note names each session of the vault he was in, in order, and his fights
    thor = (root / "thor--thor.md").read_text()
    assert thor.index("[[l-auberge-du-pendu--s1|") < thor.index("[[la-maison-de-taz--s3|") < thor.index("[[la-crypte--s4|")
    assert "[[pendu--f20|" in thor and "[[crypte--f83|" in thor
    session = front_matter(root / "la-crypte--s4.md")
    assert session is not None
    assert (session["kind"], session["session"], session["in_game_date"]) == ("session", 4, "12 Floréal")
    assert session["receipt"].startswith("88:") and session["real_date"] == session["real_start"][:10]
    text = "".join(p.read_text() for p in root.glob("*.md"))
    assert SECRET not in text
    assert not shows(OGRE_PV, text) and not shows(OGRE_PV_AFTER, text)


def test_a_second_run_overwrites_nothing_it_did_not_write(crypt, tmp_path):
    root = tmp_path / "vault"
    root.mkdir()
    mine = root / "thor--thor.md"
    mine.write_text("# Thor\nMes notes de joueuse : ne pas toucher.\n")
    other = root / "notes.md"
    other.write_text("rien à voir\n")
    args = ["recap", "--session", "4", "--view", "players", "--format", "md", "--out", str(root), "--json"]
    first = json.loads(cristal(crypt, *args).output)
    assert first["left_alone"] == ["thor--thor.md"]
    assert sorted(first["written"]) == ["crypte--f83.md", "la-crypte--s4.md", "ogre--ogre.md"]
    assert mine.read_text() == "# Thor\nMes notes de joueuse : ne pas toucher.\n"
    assert other.read_text() == "rien à voir\n"
    # the notes name Thor without a link to a note the vault did not write
    assert not any("thor--thor" in targets for targets in vault_links(root).values())
    assert "Thor" in (root / "la-crypte--s4.md").read_text()

    stamps = {p.name: p.stat().st_mtime_ns for p in root.glob("*.md")}
    second = json.loads(cristal(crypt, *args).output)
    assert second["written"] == [] and sorted(second["unchanged"]) == sorted(first["written"])
    assert {p.name: p.stat().st_mtime_ns for p in root.glob("*.md")} == stamps

    # the GM's view does not write over the players' notes (nor they over his)
    gm = json.loads(cristal(crypt, "recap", "--session", "4", "--view", "gm", "--format", "md", "--out", str(root),
                            "--json").output)
    assert gm["written"] == [] and sorted(gm["left_alone"]) == sorted([*first["written"], "thor--thor.md"])
    assert SECRET not in "".join(p.read_text() for p in root.glob("*.md"))
    text = cristal(crypt, "recap", "--session", "4", "--view", "gm", "--format", "md", "--out", str(root)).output
    assert "Left alone: la-crypte--s4.md (a note the recap did not write)." in text


@pytest.mark.french  # reads the French texts of the output
def test_a_gm_vault_has_everything(crypt, tmp_path):
    root = tmp_path / "mj"
    assert cristal(crypt, "recap", "--session", "4", "--view", "gm", "--format", "md", "--out", str(root)).exit_code == 0
    session = (root / "la-crypte--s4.md").read_text()
    fight = (root / "crypte--f83.md").read_text()
    assert SECRET in session
    assert "PV 437 → 431" in fight and "## Indice de Temps" in fight
    assert "PV 437" in (root / "ogre--ogre.md").read_text()


def test_refusals_are_one_sentence(crypt, tmp_path):
    assert one_error(cristal(crypt, "recap", "--session", "4", "--view", "players", "--format", "md")) == \
        "Error: --format md writes a vault of notes: give its folder with --out DIR."
    assert one_error(cristal(crypt, "recap", "--session", "4", "--view", "players", "--out", str(tmp_path))) == \
        ("Error: --out is the folder of a Markdown vault: add --format md, or leave --out out to print the "
         "text recap.")
    assert one_error(cristal(crypt, "recap", "--session", "9", "--view", "gm")) == \
        "Error: Session 9 has no events in this campaign."
    afile = tmp_path / "f.md"
    afile.write_text("x")
    res = cristal(crypt, "recap", "--session", "4", "--view", "gm", "--format", "md", "--out", str(afile))
    assert res.exit_code != 0 and afile.read_text() == "x"
    shutil.rmtree(tmp_path / "none", ignore_errors=True)


@pytest.mark.french  # reads the French texts of the output
def test_hostile_names_cannot_break_the_vault_or_the_terminal(tmp_path):
    db = tmp_path / "h.db"
    for args in (["init", str(db), "--name", "H"], ["session", "start", "--title", 'Nuit\x1b[2J | ]] "x": y'],
                 ["character", "create", "thor", "--race", "Humain", "--name", "Thor]]|#\n<b>", "--player", "Alice"]):
        assert cristal(db, *args).exit_code == 0
    text = cristal(db, "recap", "--session", "1", "--view", "players").output
    assert "\x1b" not in text and "Nuit\\x1b[2J" in text and "session en cours" in text
    root = tmp_path / "vault"
    assert cristal(db, "recap", "--session", "1", "--view", "players", "--format", "md", "--out", str(root)).exit_code == 0
    assert sorted(p.name for p in root.glob("*.md")) == ["nuit-2j-x-y--s1.md", "thor-b--thor.md"]
    notes = "".join(p.read_text() for p in root.glob("*.md"))
    assert "\x1b" not in notes
    bodies = "".join(p.read_text().split("\n---\n", 1)[1] for p in root.glob("*.md"))
    assert "<b>" not in bodies and "&lt;b&gt;" in bodies  # no raw HTML below the front matter
    assert vault_links(root)["nuit-2j-x-y--s1.md"] == {"thor-b--thor"}
    meta = front_matter(root / "nuit-2j-x-y--s1.md")
    assert meta is not None and meta["title"] == 'Nuit\\x1b[2J | ]] "x": y' and meta["receipt"] == ""
