"""Bugs found while integrating the parts, each kept fixed by a test."""

from __future__ import annotations


def test_audit_of_xp_moved_outside_any_session(run):
    run("init", "--name", "T")
    run("character", "create", "thor", "--race", "Humain", "--name", "Thor")
    run("xp", "award", "thor", "100", "--reason", "quête")
    res = run("audit", "xp")
    assert res.exit_code == 0, res.output
    assert "  #3     --      +100      100  award: quête  [GM]" in res.output
    assert "Total outside sessions: earned 100, spent 0" in res.output


def test_an_unexpected_failure_is_one_sentence(run, monkeypatch):
    run("init", "--name", "T")
    import cristal_events.cli.campaign as campaign_cli

    def boom(*a, **k):
        raise ValueError("boom")

    monkeypatch.setattr(campaign_cli, "log_line", boom)
    res = run("log")
    assert res.exit_code == 1
    assert res.output == ("Error: Internal error (ValueError: boom); the log itself is transactional, "
                          "check it with 'cristal verify' and please report this.\n")


def test_a_closed_pipe_stops_quietly(campaign, db_path):
    import subprocess
    import sys

    from cristal_events.events import NoteRecorded

    campaign.store.append("campaign", [NoteRecorded(text="x" * 100)] * 2000)
    proc = subprocess.Popen([sys.executable, "-c", "from cristal_events.cli import main; main()", "--db", str(db_path),
                             "log"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    proc.stdout.close()  # like `cristal log | head -1`
    proc.wait(timeout=60)
    assert first.split()[0] == b"1"
    assert proc.stderr.read() == b""


def test_an_error_quoting_typed_text_stays_on_one_line():
    # found by the content-pack fuzz test: a section named "\n" broke the one-sentence rule
    from cristal_events.errors import ContentError

    assert str(ContentError("pack.json: unknown section '\n'; sections are races.")) == \
        "pack.json: unknown section '\\n'; sections are races."
