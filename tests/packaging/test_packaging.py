"""A plain ``pip install .`` (not editable) gives a working ``cristal``: migrations and rule data ship in the wheel."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_pip_install_then_init_and_log(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", ".venv", "*.db", "__pycache__", "build", "*.egg-info",
                                                             ".hypothesis", ".pytest_cache", "demo-output"))
    venv = tmp_path / "venv"
    # A fresh venv that sees this interpreter's installed dependencies (msgspec, click ...) through a .pth
    # file, placed after its own site-packages: the wheel installed below, not the tested tree, is imported.
    # (--system-site-packages alone would see the base interpreter's packages, not the venv's running pytest.)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    inner = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                           check=True, capture_output=True, text=True).stdout.strip()
    outer = [p for p in sys.path if p.endswith("site-packages")]
    Path(inner, "outer_deps.pth").write_text("\n".join(outer) + "\n")
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", str(src)], check=True,
                   cwd=tmp_path)
    shutil.rmtree(src)  # prove nothing is read from the source tree
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CRISTAL_DB")}
    cristal = str(venv / "bin" / "cristal")
    out = subprocess.run([cristal, "init", "t.db", "--name", "Paquet"], cwd=work, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    log = subprocess.run([cristal, "--db", "t.db", "log", "--json"], cwd=work, env=env, capture_output=True, text=True)
    assert log.returncode == 0, log.stderr
    first = json.loads(log.stdout.splitlines()[0])
    assert first["type"] == "campaign.created" and first["payload"]["name"] == "Paquet"
    where = subprocess.run([str(py), "-c", "import cristal_events, migrations; print(cristal_events.__file__, migrations.__file__)"],
                           cwd=work, env=env, capture_output=True, text=True)
    assert str(venv) in where.stdout
    data = subprocess.run([str(py), "-c", "from cristal_events.rulesets.cristal.content import load_core; print(len(load_core().races))"],
                          cwd=work, env=env, capture_output=True, text=True)
    assert data.stdout.strip() == "3", data.stderr
    demo = subprocess.run([cristal, "demo", "out"], cwd=work, env=env, capture_output=True, text=True)
    assert demo.returncode == 0, demo.stderr
    assert (work / "out").is_dir() and any(p.suffix == ".html" for p in (work / "out").iterdir())
