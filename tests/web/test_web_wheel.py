"""The wheel ships the web table: its templates, its static files (htmx vendored, no CDN) and the
access-token migration."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "cristal_events" / "web"


@pytest.mark.slow
def test_the_wheel_holds_the_templates_the_static_files_and_the_migration(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", ".venv", "*.db", "__pycache__", "build",
                                                             "*.egg-info", ".hypothesis", ".pytest_cache", "docs"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path / "dist"), str(src)],
                   check=True, cwd=tmp_path)
    wheel = next((tmp_path / "dist").glob("cristal_events-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {f"cristal_events/web/templates/{p.name}" for p in (WEB / "templates").iterdir()}
    expected |= {f"cristal_events/web/static/{p.name}" for p in (WEB / "static").iterdir()}
    expected |= {"cristal_events/migrations/0006_access_tokens.sql", "cristal_events/web/cli.py"}
    assert "cristal_events/web/static/htmx.min.js" in expected
    assert expected <= names, sorted(expected - names)


def test_no_page_loads_anything_from_another_host():
    for page in (WEB / "templates").iterdir():
        text = page.read_text()
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), page.name
    assert "htmx.org@2.0.11" in (WEB / "static" / "README.md").read_text()
    assert (WEB / "static" / "htmx.min.js").read_text().startswith("var htmx=")
