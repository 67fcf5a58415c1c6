"""Re-take the screenshots of the HTML export in docs/ (docs/exports.md shows them).

    PYTHONPATH=$PWD python docs/screenshots.py

Builds the sample campaign in a temporary folder, exports its site and photographs the index, the
characters' list, the dice page and the first session's page (one state change unfolded) in
headless Chromium, through selenium.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "jobs"))

from chromium import browser  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

from cristal_events.cli import cli  # noqa: E402
from cristal_events.cli.script import load, run  # noqa: E402
from cristal_events.jobs.page import CHARACTERS_FILE, DICE_FILE  # noqa: E402


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db, site = Path(tmp) / "c.db", Path(tmp) / "site"
        run(load(ROOT / "sample_campaigns" / "compagnie_du_cristal.toml"), db)
        done = CliRunner().invoke(cli, ["--db", str(db), "export", "timeline", "--format", "html", "-o", str(site)])
        assert done.exit_code == 0, done.output
        with browser(1100, 900) as driver:
            driver.get((site / "index.html").as_uri())
            driver.save_screenshot(str(ROOT / "docs" / "export-index.png"))
            for page, shot in ((CHARACTERS_FILE, "export-characters.png"), (DICE_FILE, "export-dice.png")):
                driver.get((site / page).as_uri())
                driver.save_screenshot(str(ROOT / "docs" / shot))
            driver.get((site / "session-1.html").as_uri())
            attack = driver.find_element(By.ID, "e21")
            attack.find_element(By.CSS_SELECTOR, "details summary").click()
            driver.execute_script("document.getElementById('e17').scrollIntoView()")
            driver.save_screenshot(str(ROOT / "docs" / "export-session.png"))


if __name__ == "__main__":
    main()
