"""The web table in a real browser: Debian's chromium driven by Selenium (chromium-driver).

The game master runs a fight from the page while a player's page follows it live; a player's action
for someone else's character is refused; four browser sessions and two terminal writers act at once
with nothing lost; a spell cast and an Illergan fight from the GM's page show live on the player's. Screenshots of both views go to docs/web-gm.png and docs/web-player.png (with CRISTAL_SCREENSHOTS=1).

CI installs the browser with: apt-get install -y chromium chromium-driver
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from conftest import Served, event_count
from conftest import cristal_process as cristal

pytestmark = pytest.mark.browser
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
DOCS = Path(__file__).resolve().parents[2] / "docs"


def _need_browser() -> None:
    missing = [what for what, found in (("chromium", CHROMIUM), ("chromedriver", DRIVER)) if not found]
    try:
        import selenium  # noqa: F401
    except ModuleNotFoundError:
        missing.append("the selenium package")
    if missing:
        reason = (f"BROWSER TESTS NOT RUN: {', '.join(missing)} not found "
                  "(apt-get install -y chromium chromium-driver; pip install selenium)")
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


@pytest.fixture
def browsers():
    """A factory of headless Chromium sessions, each with a new empty profile; all quit at the end."""
    _need_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opened = []
    profiles = []

    def make(width: int = 1200, height: int = 1000):
        profile = tempfile.mkdtemp(prefix="cristal-chromium-")
        profiles.append(profile)
        options = Options()
        options.binary_location = CHROMIUM
        for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--disable-dev-shm-usage", f"--user-data-dir={profile}", f"--window-size={width},{height}"):
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(options=options, service=Service(DRIVER))
        opened.append(driver)
        return driver

    yield make
    for d in opened:
        d.quit()
    for p in profiles:
        shutil.rmtree(p, ignore_errors=True)


def wait(driver, condition, timeout=10.0):
    """Wait for ``condition``; the live page replaces its parts, so a stale element is looked up again."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.05,
                         ignored_exceptions=(StaleElementReferenceException, NoSuchElementException)).until(
        lambda d: condition(d))


def submit(driver, form: str, **fields) -> str:
    """Fill a form of the page, send it, and return the sentence shown in #result (a form the live page
    replaced while it was being filled is filled again)."""
    from selenium.common.exceptions import StaleElementReferenceException

    for _ in range(5):
        try:
            return _submit(driver, form, **fields)
        except StaleElementReferenceException:
            time.sleep(0.1)
    return _submit(driver, form, **fields)


def _submit(driver, form: str, **fields) -> str:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver.execute_script("document.getElementById('result').textContent = ''")
    f = driver.find_element(By.ID, f"form-{form}")
    for name, value in fields.items():
        el = f.find_element(By.NAME, name)
        if el.tag_name == "select":
            Select(el).select_by_value(value)
        else:
            el.clear()
            el.send_keys(value)
    f.find_element(By.TAG_NAME, "button").click()
    return wait(driver, lambda d: d.find_element(By.ID, "result").text.strip() or False)


def shown_positions(driver) -> set[int]:
    return set(driver.execute_script(
        "return Array.from(document.querySelectorAll('#log li')).map(li => Number(li.dataset.position))"))


def severe_console_errors(driver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


@pytest.mark.french
def test_the_game_master_runs_a_fight_while_a_player_follows_live(table, served, browsers, tmp_path):
    from selenium.webdriver.common.by import By

    gm, player = browsers(1280, 1500), browsers(390, 1400)  # the player on a phone-sized window
    gm.get(served.url(table.tokens["mj"]))
    player.get(served.url(table.tokens["alice"]))
    assert gm.current_url.endswith("/") and "token" not in gm.current_url
    wait(gm, lambda d: d.find_element(By.ID, "timeline"))
    assert "Prochain : thor" in gm.find_element(By.ID, "next").text
    time.sleep(0.5)  # both pages' event streams are open

    delays = []
    for form, fields in (("attack", {"fighter": "thor", "target": "ogre", "dice": "18"}),
                         ("attack", {"fighter": "york", "target": "ogre", "dice": "3"}),
                         ("note", {"text": "L'ogre recule <vite>"}),
                         ("award", {"character": "thor", "amount": "50", "reason": "Courage"})):
        said = submit(gm, form, **fields)
        assert said.startswith("Enregistré"), said
        done = time.monotonic()
        last = event_count(table.db)
        wait(player, lambda d, last=last: last in shown_positions(d), timeout=5)
        delays.append(time.monotonic() - done)
    # a writer in the terminal: both pages show it too
    cristal(table.db, "damage", "ogre", "5", "--reason", "Chute")
    done = time.monotonic()
    for page in (gm, player):
        wait(page, lambda d: d.find_element(By.CSS_SELECTOR, '#timeline tr[data-fighter="ogre"] .pv').text.startswith("7/12"),
             timeout=5)
    delays.append(time.monotonic() - done)
    assert max(delays) < 1.0, delays

    # the player's page shows the fight as the GM's does, and Thor's XP
    show = json.loads(cristal(table.db, "combat", "show", "pendu", "--json"))
    gm_its = {r.get_attribute("data-fighter"): int(r.find_element(By.CLASS_NAME, "it").text)
              for r in gm.find_elements(By.CSS_SELECTOR, "#timeline tr[data-fighter]")}
    player_its = {r.get_attribute("data-fighter"): int(r.find_element(By.CLASS_NAME, "it").text)
                  for r in player.find_elements(By.CSS_SELECTOR, "#timeline tr[data-fighter]")}
    assert gm_its == player_its == {p["id"]: p["it"] for p in show["participants"]}
    assert "Prochain : ogre" in player.find_element(By.ID, "next").text
    wait(player, lambda d: d.find_element(By.CSS_SELECTOR, '.sheet[data-character="thor"] .xp').text == "450")
    # the note's text is text: escaped in the DOM, never an element
    assert "&lt;vite&gt;" in player.page_source and "<vite>" not in player.page_source
    assert "<vite>" in player.find_element(By.ID, "log").text
    log = json.loads(cristal(table.db, "log", "--type", "combat.attack_resolved", "--json").splitlines()[0])
    assert log["actor"] == "mj"

    # the player acts for their own character from the phone page
    said = submit(player, "rest", character="thor", days="1")
    assert said.startswith("Enregistré"), said
    assert json.loads(cristal(table.db, "log", "--type", "character.rested", "--json").splitlines()[-1])["actor"] == "alice"
    assert not severe_console_errors(gm) and not severe_console_errors(player)

    # the screenshots of docs/ are refreshed only when asked (CRISTAL_SCREENSHOTS=1): a test run leaves the tree clean
    shots = DOCS if os.environ.get("CRISTAL_SCREENSHOTS") else tmp_path
    for page in (gm, player):
        page.execute_script("window.scrollTo(0, 0)")
    gm.save_screenshot(str(shots / "web-gm.png"))
    player.save_screenshot(str(shots / "web-player.png"))
    assert (shots / "web-gm.png").stat().st_size > 1000 and (shots / "web-player.png").stat().st_size > 1000


def test_a_players_action_for_someone_elses_character_is_refused(table, served, browsers):
    from selenium.webdriver.common.by import By

    player = browsers()
    player.get(served.url(table.tokens["alice"]))
    options = [o.get_attribute("value") for o in
               player.find_elements(By.CSS_SELECTOR, "#form-attack select[name=fighter] option")]
    assert options == ["thor"]  # the page offers only her character
    # a hand-edited page (or a forged request) still cannot act for York
    player.execute_script("""document.querySelector('#form-attack select[name=fighter]').innerHTML =
                             '<option value="york">york</option>';""")
    before = event_count(table.db)
    said = submit(player, "attack", fighter="york", target="ogre", dice="18")
    assert said == "alice may not act for 'york'; only for thor."
    said = submit(player, "buy", character="thor", kind="level", name="Guerrier", stat="FRC")
    assert said.startswith("Asked the game master (request "), said  # approval_xp_purchase=gm by default
    assert event_count(table.db) == before + 1
    assert not player.find_elements(By.ID, "form-award") and not player.find_elements(By.ID, "form-next")


@pytest.mark.french
def test_the_game_master_casts_a_known_spell_and_the_players_page_shows_it_live(table, served, browsers):
    from selenium.webdriver.common.by import By

    cristal(table.db, "xp", "buy", "thor", "spell", "Boule de Feu", "--cost", "50")  # Thor learns it
    assert json.loads(cristal(table.db, "sheet", "thor", "--json"))["spells"] == ["Boule de Feu"]
    gm, player = browsers(1280, 1500), browsers(390, 1400)
    gm.get(served.url(table.tokens["mj"]))
    player.get(served.url(table.tokens["alice"]))
    wait(player, lambda d: d.find_element(By.ID, "timeline"))
    assert "incante" not in player.find_element(By.ID, "timeline").text
    time.sleep(0.5)  # both pages' event streams are open
    said = submit(gm, "cast", fighter="thor", spell="Boule de Feu", effects="Dommage=2", target="ogre", dice="18")
    assert said.startswith("Enregistré : combat cast pendu thor Boule de Feu --effect Dommage=2 --target ogre"), said
    done = time.monotonic()
    thor = '#timeline tr[data-fighter="thor"]'
    wait(player, lambda d: "incante Boule de Feu jusqu'à IT" in d.find_element(By.CSS_SELECTOR, thor).text, timeout=5)
    assert time.monotonic() - done < 1.0
    cast = json.loads(cristal(table.db, "log", "--type", "combat.spell_cast", "--json").splitlines()[-1])
    assert (cast["actor"], cast["payload"]["caster"], cast["payload"]["spell"], cast["payload"]["spends"]) == \
        ("mj", "thor", "Boule de Feu", {"Dommage": 2})
    wait(player, lambda d: cast["position"] in shown_positions(d), timeout=5)
    entry = player.find_element(By.CSS_SELECTOR, f'#log li[data-position="{cast["position"]}"]').text
    assert "thor lance Boule de Feu (2 PM)" in entry and "réussi" in entry
    show = json.loads(cristal(table.db, "combat", "show", "pendu", "--json"))
    pm = next(p["pm"] for p in show["participants"] if p["id"] == "thor")
    wait(player, lambda d: d.find_element(By.CSS_SELECTOR, thor).find_elements(By.TAG_NAME, "td")[4].text == str(pm))
    assert not severe_console_errors(gm) and not severe_console_errors(player)


@pytest.mark.french
def test_an_illergan_fight_from_the_game_masters_page_is_followed_live_by_the_player(tmp_path, browsers):
    from selenium.webdriver.common.by import By
    from test_web_illergan import IllerganTable

    ill = IllerganTable(tmp_path)
    served = Served(ill.db)
    try:
        gm, player = browsers(1280, 1500), browsers(390, 1400)
        gm.get(served.url(ill.tokens["mj"]))
        player.get(served.url(ill.tokens["bruno"]))
        wait(player, lambda d: "Prochain : lysa" in d.find_element(By.ID, "next").text)
        time.sleep(0.5)  # both pages' event streams are open
        said = submit(gm, "icast", fighter="lysa", spell="Embrasement", level="1", target="chef", damage="30", dice="50")
        assert said.startswith("Enregistré : cast lysa Embrasement --level 1 --fight pont --target chef"), said
        done = time.monotonic()
        wait(player, lambda d: "Prochain : thor" in d.find_element(By.ID, "next").text, timeout=5)
        assert time.monotonic() - done < 1.0
        lysa = player.find_element(By.CSS_SELECTOR, '#timeline tr[data-fighter="lysa"]').text
        pm = json.loads(cristal(ill.db, "sheet", "lysa", "--json"))["pm"]  # what the cast left her, by the rules
        assert str(pm) in lysa.split() and "1 mineure, 1 compétence" in lysa
        # Bruno's own page acts for Lysa only: a skill check from the phone
        options = [o.get_attribute("value") for o in player.find_elements(By.CSS_SELECTOR, "#form-check select option")]
        assert options == ["lysa"]
        said = submit(player, "check", character="lysa", what="Acuité visuelle", dice="12")
        assert said.startswith("Enregistré : check skill lysa Acuité visuelle --dice 12"), said
        rec = json.loads(cristal(ill.db, "log", "--type", "check.rolled", "--json").splitlines()[-1])
        assert (rec["actor"], rec["payload"]["character"]) == ("bruno", "lysa")
        wait(gm, lambda d: rec["position"] in shown_positions(d), timeout=5)
        assert not severe_console_errors(gm) and not severe_console_errors(player)
    finally:
        served.stop()


def _cli_writer(db: Path, character: str, rounds: int, errors: list[str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    for i in range(rounds):
        r = subprocess.run([sys.executable, "-c", "from cristal_events.cli import main; main()", "--db", str(db), "--actor", "term",
                            "xp", "award", character, "10", "--reason", f"terminal {i}"],
                           capture_output=True, text=True, env=env)
        if r.returncode != 0:
            errors.append(r.stderr)


@pytest.mark.slow
def test_four_browsers_and_two_terminal_writers_at_once_lose_nothing(table, browsers):
    cristal(table.db, "access", "grant", "mj2", "--gm")
    second_gm = json.loads(cristal(table.db, "access", "list", "--json"))
    assert any(r["name"] == "mj2" for r in second_gm)
    mj2 = json.loads(cristal(table.db, "access", "revoke", "mj2", "--json"))
    assert mj2["revoked"]
    table.tokens["mj2"] = json.loads(cristal(table.db, "access", "grant", "mj2", "--gm", "--json"))["token"]
    served = Served(table.db)
    try:
        rounds = 4
        pages = {who: browsers() for who in ("mj", "mj2", "alice", "bob")}
        for who, page in pages.items():
            page.get(served.url(table.tokens[who]))
        before = event_count(table.db)
        xp_before = {c: json.loads(cristal(table.db, "sheet", c, "--json"))["variable"]["XP"] for c in ("thor", "york", "ogre")}
        errors: list[str] = []
        said: list[str] = []

        def browser_writer(who: str) -> None:
            page = pages[who]
            for i in range(rounds):
                if who.startswith("mj"):
                    said.append(submit(page, "award", character="thor" if who == "mj" else "york", amount="5",
                                       reason=f"{who} {i}"))
                else:
                    said.append(submit(page, "rest", character="thor" if who == "alice" else "york", days="1"))

        threads = [threading.Thread(target=browser_writer, args=(w,)) for w in pages]
        threads += [threading.Thread(target=_cli_writer, args=(table.db, c, rounds, errors)) for c in ("ogre", "thor")]
        for t in threads:
            t.start()
        for t in threads:
            t.join(180)
        assert not errors, errors
        assert len(said) == 4 * rounds and all(s.startswith("Recorded:") for s in said), said
        after = {c: json.loads(cristal(table.db, "sheet", c, "--json"))["variable"]["XP"] for c in ("thor", "york", "ogre")}
        assert after == {"thor": xp_before["thor"] + 5 * rounds + 10 * rounds,
                         "york": xp_before["york"] + 5 * rounds, "ogre": xp_before["ogre"] + 10 * rounds}
        log = [json.loads(line) for line in cristal(table.db, "log", "--after", str(before), "--json").splitlines()]
        actors = [e["actor"] for e in log if e["type"] in ("xp.awarded", "character.rested")]
        assert sorted(set(actors)) == ["alice", "bob", "mj", "mj2", "term"]
        assert actors.count("term") == 2 * rounds and actors.count("mj") == rounds and actors.count("mj2") == rounds
        assert cristal(table.db, "verify").startswith("OK")
        # every page caught up with the last position
        last = event_count(table.db)
        for page in pages.values():
            wait(page, lambda d: last in shown_positions(d), timeout=5)
    finally:
        served.stop()
