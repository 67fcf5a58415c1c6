"""Every kind of command on a PostgreSQL campaign through the CLI (issue 20, item 1): `cristal init
postgresql://...`, `--db URL` and `CRISTAL_DB=URL`, writes, reads, exports, verify and rebuild."""

from __future__ import annotations

import json

from click.testing import CliRunner
from pgcluster import with_campaign

from cristal_events.cli import cli


def _run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)


def test_a_session_at_the_table_on_postgresql(pg_url):
    url = with_campaign(pg_url, "taverne")
    made = _run("init", url, "--name", "La Taverne", "--ruleset", "cristal", "--seed", "7")
    assert made.exit_code == 0 and "Created campaign « La Taverne »" in made.output
    env = {"CRISTAL_DB": url}
    for argv in (["session", "start", "--title", "L'auberge"],
                 ["character", "create", "thor", "--race", "Humain", "--name", "Thor", "--player", "Alice",
                  "--set", "FRC=+1"],
                 ["xp", "award", "thor", "400", "--reason", "Départ"],
                 ["xp", "buy", "thor", "level", "Guerrier", "--stat", "FRC"],
                 ["check", "sur-effort", "thor", "FRC", "--reason", "La herse", "--dice", "3"]):
        out = _run(*argv, env=env)
        assert out.exit_code == 0, (argv, out.output)
    ended = _run("--db", url, "session", "end")
    assert ended.exit_code == 0 and "Receipt: " in ended.output
    receipt = ended.output.split("Receipt: ")[1].split()[0]
    sheet = _run("--db", url, "sheet", "thor", "--json")
    assert json.loads(sheet.output)["name"] == "Thor" and json.loads(sheet.output)["global_level"] == 1
    audit = _run("--db", url, "audit", "xp", "thor")
    assert audit.exit_code == 0 and "balance 300 XP" in audit.output
    log = _run("--db", url, "log", "--json")
    assert [json.loads(line)["type"] for line in log.output.splitlines()][:2] == ["campaign.created", "session.started"]
    md = _run("--db", url, "export", "timeline", "--format", "md")
    assert md.exit_code == 0 and "# La Taverne" in md.output
    assert _run("--db", url, "rebuild").exit_code == 0
    verify = _run("--db", url, "verify", "--rolls", "--receipt", receipt, "--json")
    assert verify.exit_code == 0 and json.loads(verify.output)["ok"] is True
    refused = _run("--db", url, "xp", "buy", "thor", "level", "Guerrier", "--stat", "FRC")  # 200 XP, 300 kept
    assert refused.exit_code == 0
    broke = _run("--db", url, "xp", "buy", "thor", "level", "Guerrier", "--stat", "FRC")
    assert broke.exit_code == 1 and broke.output.startswith("Error: ") and broke.output.count("\n") == 1


def test_an_unknown_campaign_or_server_is_one_sentence(pg_url):
    missing = _run("--db", with_campaign(pg_url, "absent"), "log")
    assert missing.exit_code == 1 and "No campaign absent in postgresql://" in missing.output
    assert "cristal init" in missing.output
    down = _run("--db", "postgresql://cristal@/nope?host=/nonexistent", "log")
    assert down.exit_code == 1 and "cannot be reached" in down.output and down.output.count("\n") == 1


def test_a_sample_campaign_script_builds_the_same_campaign_on_postgresql(pg_url, tmp_path):
    """Every command a sample campaign runs (sessions, characters, fights, XP) on both backends: the
    same Markdown recap but for the receipts (the events' times and ids differ, so their hashes do)."""
    from pathlib import Path

    sample = str(Path(__file__).resolve().parents[2] / "sample_campaigns" / "brigands_de_la_foret.toml")
    url, path = with_campaign(pg_url, "brigands"), str(tmp_path / "brigands.db")
    recaps = []
    for target in (url, path):
        built = _run("script", "run", sample, target)
        assert built.exit_code == 0, built.output
        assert _run("--db", target, "verify", "--rolls").exit_code == 0
        md = _run("--db", target, "export", "timeline", "--format", "md").output
        recaps.append([line for line in md.splitlines() if not line.startswith("**Receipt:**")])
    assert recaps[0] == recaps[1] and len(recaps[0]) > 40
    again = _run("script", "run", sample, url)  # a script builds a new campaign: an existing one is refused
    assert again.exit_code == 1 and "already exists" in again.output
    assert _run("--db", url, "verify").exit_code == 0  # ... and left as it was


def test_no_command_writes_a_file_named_after_the_url(pg_url, tmp_path, monkeypatch):
    """A URL is no file name: every command that keeps a file beside an SQLite campaign (the session's
    secret, the sealed rolls, the console's history) keeps it for a PostgreSQL campaign under
    CRISTAL_SECRETS_DIR, and nothing lands in the working folder, whatever the command."""
    url = with_campaign(pg_url, "brume")
    here, out = tmp_path / "here", tmp_path / "out"
    here.mkdir()
    out.mkdir()
    monkeypatch.chdir(here)
    assert _run("init", url, "--name", "Brume", "--seed", "3").exit_code == 0
    env = {"CRISTAL_DB": url}
    for argv in (["session", "start", "--title", "La forêt"],
                 ["character", "create", "thor", "--race", "Humain", "--name", "Thor", "--player", "Alice"],
                 ["check", "technique", "thor", "Natation", "--secret"],
                 ["settings", "--set", "fudge_policy=sealed", "--reason", "la table l'a voté"]):
        done = _run(*argv, env=env)
        assert done.exit_code == 0, (argv, done.output)
    hidden = json.loads(_run("check", "technique", "thor", "Forestier", "--secret", "--json", env=env).stdout)
    award = json.loads(_run("xp", "award", "thor", "600", "--reason", "le gué", "--json", env=env).stdout)
    rolled = json.loads(_run("check", "sur-effort", "thor", "FRC", "--reason", "La herse", "--json", env=env).stdout)
    secrets = tmp_path / "secrets"
    stems = {p.name for p in secrets.iterdir()}
    assert {s.rsplit(".", 1)[1] for s in stems} == {"secrets", "sealed"} and len({s.rsplit(".", 1)[0] for s in stems}) == 1
    for argv in (["reveal", str(hidden["sealed"]["position"])],
                 ["override", str(award[0]["position"]), "--set", "amount=60", "--reason", "trop"],
                 ["reroll", str(rolled[-1]["position"]), "--reason", "tombé", "--dice", "4"],
                 ["log"], ["replay"], ["sheet", "thor"], ["characters"], ["audit", "dice"], ["audit", "xp"],
                 ["dice", "report"], ["settings"], ["recap", "--session", "1", "--view", "players"],
                 ["recap", "--session", "1", "--view", "gm", "--format", "md", "--out", str(out / "vault")],
                 ["export", "timeline", "--format", "md"],
                 ["export", "timeline", "--format", "html", "-o", str(out / "site")],
                 ["export", "timeline", "--format", "jsonl", "-o", str(out / "t.jsonl")],
                 ["verify", "--rolls"], ["rebuild"], ["access", "grant", "alice", "--character", "thor"],
                 ["access", "list"], ["session", "end"], ["receipt"]):
        done = _run(*argv, env=env)
        assert done.exit_code == 0, (argv, done.output)
    played = CliRunner().invoke(cli, ["--db", url, "play"], input="note 'au coin du feu'\nlog\n",
                                catch_exceptions=False)
    assert played.exit_code == 0 and "au coin du feu" in played.stdout, played.output
    assert list(here.iterdir()) == []
    assert not [p for p in tmp_path.rglob("*") if "postgres" in p.name or "@" in p.name]
    assert (out / "site" / "index.html").is_file() and (out / "vault").is_dir()
    report = json.loads(_run("verify", "--rolls", "--json", env=env).stdout)
    assert report["ok"] and report["rolls"]["revealed"] == 3 and report["rolls"]["sealed"] == 0
    assert {p.name.rsplit(".", 1)[1] for p in secrets.iterdir()} <= {"history"}  # the session's files went with it
