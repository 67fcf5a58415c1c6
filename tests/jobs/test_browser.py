"""The HTML site in a real headless browser (Debian's chromium and chromedriver, through selenium):
its pages load without console errors, the story reads in names with the state changes folded away,
and a hostile character name is shown as text, never run.

CI installs the browser with: apt-get install -y chromium chromium-driver (without it these tests fail).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from chromium import browser, console_errors
from click.testing import CliRunner
from selenium.webdriver.common.by import By

from cristal_events.cli import cli
from cristal_events.cli.script import load
from cristal_events.cli.script import run as run_script

pytestmark = pytest.mark.browser
SAMPLE = Path(__file__).resolve().parents[2] / "sample_campaigns" / "compagnie_du_cristal.toml"
HOSTILE = "<script>alert(1)</script>"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("browser")
    db = tmp / "c.db"
    run_script(load(SAMPLE), db)
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", str(db), "session", "start", "--title", "Intrus"]).exit_code == 0
    made = runner.invoke(cli, ["--db", str(db), "character", "create", "intrus", "--race", "Humain", "--name", HOSTILE])
    assert made.exit_code == 0, made.output
    out = tmp / "site"
    # the pages in French, as the assertions read them
    done = runner.invoke(cli, ["--db", str(db), "--lang", "fr", "export", "timeline", "--format", "html", "-o", str(out)])
    assert done.exit_code == 0, done.output
    return out


def _texts(driver, css: str) -> list[str]:
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, css)]


def test_the_site_loads_in_chromium_reads_in_names_and_shows_the_hostile_name_as_text(site):
    with browser() as driver:
        driver.get((site / "index.html").as_uri())
        assert driver.title == "La Compagnie du Cristal — chronologie"
        assert driver.find_elements(By.TAG_NAME, "script") == []
        links = _texts(driver, "#sessions a")
        assert links[1:] == ["Session 1 : L'auberge du Pendu", "Session 2 : La route de Valombre",
                             "Session 3 : La maison de Taz", "Session 4 : Intrus"]
        assert _texts(driver, "nav a") == ["Sessions", "Personnages", "Dés"]
        driver.find_element(By.LINK_TEXT, "Personnages").click()  # the characters' list, a page of its own
        assert HOSTILE in _texts(driver, "#characters td a")
        assert len(driver.find_elements(By.CSS_SELECTOR, "#characters svg.spark")) >= 5
        driver.get((site / "index.html").as_uri())
        driver.find_element(By.LINK_TEXT, "Dés").click()  # the GM's dice and the fairness charts
        assert driver.find_elements(By.CSS_SELECTOR, "#dice-fairness svg")

        driver.get((site / "session-1.html").as_uri())
        summaries = _texts(driver, "span.summary")
        assert "Thor (Humain) entre dans l'histoire : PV 12, PM 6" in summaries
        assert ("Thor attaque York à l'épée longue : ATT 1 + d20 13 = 14 > DP 10, touché ; 6 dégâts, PV 15 → 9 ; "
                "IT 0 → 6") in summaries
        folded = driver.find_elements(By.CSS_SELECTOR, "details.changes")
        assert folded and not any(d.get_attribute("open") for d in folded)
        assert not any(e.is_displayed() for e in driver.find_elements(By.CSS_SELECTOR, "details.changes li"))
        folded[0].find_element(By.TAG_NAME, "summary").click()  # a click unfolds the state change
        assert folded[0].find_element(By.TAG_NAME, "li").is_displayed()
        assert driver.find_elements(By.CSS_SELECTOR, "section.combat table")

        driver.get((site / "session-4.html").as_uri())
        assert driver.find_elements(By.TAG_NAME, "script") == []
        assert f"{HOSTILE} (Humain) entre dans l'histoire : PV 12, PM 6" in _texts(driver, "span.summary")

        driver.get((site / "personnages.html").as_uri())
        driver.find_element(By.LINK_TEXT, "Thor").click()  # the character's page, with its charts
        assert driver.find_element(By.TAG_NAME, "h1").text == "Thor"
        assert len(driver.find_elements(By.CSS_SELECTOR, "svg.chart")) == 2
        driver.find_element(By.LINK_TEXT, "Personnages").click()  # back to the list
        assert _texts(driver, "#characters h2") == ["Personnages"]
        assert console_errors(driver) == []
