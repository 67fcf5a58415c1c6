"""The HTML timeline in a real headless browser (Debian's chromium): it loads without console
errors, shows the expected events, and a hostile character name is shown as text, never run.

CI installs the browser with: apt-get install -y chromium
"""

from __future__ import annotations

import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from cristal_events.cli import cli
from cristal_events.cli.script import load
from cristal_events.cli.script import run as run_script

pytestmark = pytest.mark.browser
SAMPLE = Path(__file__).resolve().parents[2] / "sample_campaigns" / "compagnie_du_cristal.toml"
HOSTILE = "<script>alert(1)</script>"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class Page(HTMLParser):
    """The elements and the text of each span.summary of a dumped DOM."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.summaries: list[str] = []
        self._in_summary = False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self._in_summary = tag == "span" and ("class", "summary") in attrs
        if self._in_summary:
            self.summaries.append("")

    def handle_endtag(self, tag):
        if tag == "span":
            self._in_summary = False

    def handle_data(self, data):
        if self._in_summary:
            self.summaries[-1] += data


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("browser")
    db = tmp / "c.db"
    run_script(load(SAMPLE), db)
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", str(db), "session", "start", "--title", "Intrus"]).exit_code == 0
    made = runner.invoke(cli, ["--db", str(db), "character", "create", "intrus", "--race", "Humain", "--name", HOSTILE])
    assert made.exit_code == 0, made.output
    out = tmp / "timeline.html"
    # the page in French, as the assertions read it
    assert runner.invoke(cli, ["--db", str(db), "--lang", "fr", "export", "timeline", "--format", "html", "-o",
                               str(out)]).exit_code == 0
    return out


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)")
def test_the_timeline_loads_in_chromium_and_shows_the_hostile_name_as_text(page, tmp_path):
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
           "--enable-logging=stderr", "--v=0", "--dump-dom", page.as_uri()]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    console = [ln for ln in done.stderr.splitlines() if "CONSOLE" in ln or "Refused to" in ln or "Uncaught" in ln]
    assert console == []
    dom = Page()
    dom.feed(done.stdout)
    assert "script" not in dom.tags  # the hostile name did not become an element
    assert "svg" in dom.tags and "table" in dom.tags
    assert "Thor (Humain) créé : PV 12, PM 6" in dom.summaries
    assert "Boule de Feu de york se libère : thor 10 dommages (+8)" in dom.summaries
    assert f"{HOSTILE} (Humain) créé : PV 12, PM 6" in dom.summaries
    assert "<title>La Compagnie du Cristal — chronologie</title>" in done.stdout
