"""The game master's queue in a real browser (Debian's chromium, Selenium): a player asks for a level
from her page, the request shows live in the game master's queue, one click approves it and her sheet
follows; another is refused with a reason and nothing of the rules is recorded."""

from __future__ import annotations

import json

import pytest
from conftest import cristal_process as cristal
from conftest import event_count
from test_web_browser import browsers, submit, wait  # noqa: F401 - browsers is the fixture

pytestmark = pytest.mark.browser


def queue(driver) -> list[int]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#request-list li')).map(li => Number(li.dataset.request))")


def test_the_game_master_approves_a_players_level_from_the_page(table, served, browsers):  # noqa: F811
    from selenium.webdriver.common.by import By

    gm, player = browsers(1280, 1500), browsers(390, 1400)
    gm.get(served.url(table.tokens["mj"]))
    player.get(served.url(table.tokens["alice"]))
    wait(gm, lambda d: d.find_element(By.ID, "requests"))
    assert queue(gm) == []
    said = submit(player, "buy", character="thor", kind="level", name="Guerrier", stat="FRC")
    assert said.startswith("Asked the game master (request "), said
    asked = int(said.split("(request ", 1)[1].split(")", 1)[0])
    wait(gm, lambda d: queue(d) == [asked])  # live: the queue follows the log
    before = event_count(table.db)
    gm.find_element(By.CSS_SELECTOR, f"#request-list li[data-request='{asked}'] button.approve").click()
    wait(gm, lambda d: d.find_element(By.ID, "result").text.startswith("Recorded:"))
    wait(gm, lambda d: queue(d) == [])
    events = [json.loads(line) for line in cristal(table.db, "log", "--after", str(before), "--json").splitlines()]
    assert [e["type"] for e in events] == ["xp.level_bought", "request.approved"]
    assert events[0]["actor"] == "alice" and events[1]["actor"] == "mj"
    assert events[1]["payload"]["request"] == asked and events[1]["payload"]["positions"] == [events[0]["position"]]
    wait(player, lambda d: "Guerrier" in d.find_element(By.ID, "sheets").text)

    said = submit(player, "buy", character="thor", kind="level", name="Guerrier", stat="FRC")
    second = int(said.split("(request ", 1)[1].split(")", 1)[0])
    wait(gm, lambda d: queue(d) == [second])
    before = event_count(table.db)
    item = gm.find_element(By.CSS_SELECTOR, f"#request-list li[data-request='{second}']")
    item.find_element(By.NAME, "reason").send_keys("pas ce soir")
    item.find_element(By.CSS_SELECTOR, "button.refuse").click()
    wait(gm, lambda d: queue(d) == [])
    (refused,) = [json.loads(line) for line in cristal(table.db, "log", "--after", str(before), "--json").splitlines()]
    assert refused["type"] == "request.refused"
    assert refused["payload"] == {"type": "request.refused", "request": second, "reason": "pas ce soir"}
    assert json.loads(cristal(table.db, "sheet", "thor", "--json"))["classes"] == {"Guerrier": 1}
