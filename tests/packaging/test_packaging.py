"""Packaging: a plain ``pip install .`` (not editable) gives a working ``cristal`` (migrations, rule data and
sample campaigns ship in the wheel), inside the ``cristal_events`` namespace only: the repository's top-level
``projections/``, ``migrations/`` and ``sample_campaigns/`` are installed as ``cristal_events.projections`` ...,
never as top-level packages that another project's ``migrations`` could shadow or be shadowed by."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BESIDE = ("projections", "migrations", "sample_campaigns")
IGNORE = shutil.ignore_patterns(".git", ".venv", "*.db", "__pycache__", "build", "dist", "*.egg-info",
                                ".hypothesis", ".pytest_cache", "demo-output")


def test_pyproject_lists_every_package_of_the_tree():
    """``package-dir`` renames cannot be combined with ``packages.find``, so the packages are listed: a
    package folder added under ``cristal_events/`` (or the three top-level folders) must be listed too."""
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    tree = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "cristal_events").rglob("__init__.py")
            if "__pycache__" not in p.parts}
    tree |= {f"cristal_events.{name}" for name in BESIDE if (ROOT / name / "__init__.py").is_file()}
    assert sorted(conf["packages"]) == sorted(tree)
    assert {k: v for k, v in conf["package-dir"].items() if k != "cristal_events"} == {
        f"cristal_events.{name}": name for name in BESIDE}


def test_checkout_imports_the_top_level_folders_inside_the_namespace():
    """From a plain checkout (PYTHONPATH=repo, as the tests' worker processes run), the three folders are
    ``cristal_events.<name>``, read from the checkout; nothing else of the checkout joins the package."""
    code = ("import importlib.util, cristal_events\n"
            "from cristal_events import migrations, projections, sample_campaigns\n"
            "import cristal_events.projections.runner\n"
            "print(migrations.__file__, projections.runner.__file__, sample_campaigns.__file__)\n"
            "print(importlib.util.find_spec('cristal_events.tests'), importlib.util.find_spec('cristal_events.benchmarks'))\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT / "docs", env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    files, others = out.stdout.splitlines()
    assert files.split() == [str(ROOT / "migrations" / "__init__.py"), str(ROOT / "projections" / "runner.py"),
                             str(ROOT / "sample_campaigns" / "__init__.py")]
    assert others == "None None"


def _fresh_venv(tmp_path: Path) -> tuple[Path, Path]:
    """A fresh venv that sees this interpreter's installed dependencies (msgspec, click ...) but not the engine.

    Its .pth file names one folder of links to every top-level entry of this interpreter's site-packages
    except the engine's own (``cristal_events``, its dist-info and editable finder, and the top-level
    folders an older wheel installed): what is installed below, not this interpreter's engine (``.ci/run``
    installs one), is imported. (--system-site-packages alone would see the base interpreter's packages,
    not the venv's running pytest.)"""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    inner = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                check=True, capture_output=True, text=True).stdout.strip())
    deps = tmp_path / "deps"
    deps.mkdir()
    for outer in (Path(p) for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()):
        for entry in outer.iterdir():
            name = entry.name.lower().replace("-", "_")
            if "cristal_events" in name or entry.stem in BESIDE or name.endswith(".pth") or (deps / entry.name).exists():
                continue
            (deps / entry.name).symlink_to(entry)
    (inner / "zz_outer_deps.pth").write_text(f"{deps}\n")
    return py, inner


def _dummy_packages(site: Path) -> None:
    """Another project's top-level ``migrations`` and ``projections``, with content of their own."""
    for name in ("migrations", "projections"):
        (site / name).mkdir()
        (site / name / "__init__.py").write_text(f"WHO = 'the other project: {name}'\n")
        (site / name / "0001_theirs.sql").write_text("CREATE TABLE theirs (x);\n")


def _run_demo(venv: Path, work: Path, samples: Path) -> None:
    """``cristal init``, ``log`` and ``demo`` run; the demo builds the sample installed in ``samples``."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CRISTAL_DB")}
    cristal = str(venv / "bin" / "cristal")
    out = subprocess.run([cristal, "init", "t.db", "--name", "Paquet"], cwd=work, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    log = subprocess.run([cristal, "--db", "t.db", "log", "--json"], cwd=work, env=env, capture_output=True, text=True)
    assert log.returncode == 0, log.stderr
    first = json.loads(log.stdout.splitlines()[0])
    assert first["type"] == "campaign.created" and first["payload"]["name"] == "Paquet"
    demo = subprocess.run([cristal, "demo", "out"], cwd=work, env=env, capture_output=True, text=True)
    assert demo.returncode == 0, demo.stderr
    built = f"Built « La Compagnie du Cristal » from {samples / 'compagnie_du_cristal.toml'}: "
    assert demo.stdout.startswith(built), demo.stdout[:300]
    assert (work / "out").is_dir() and any(p.suffix == ".html" for p in (work / "out").iterdir())
    # the installed wheel speaks French from its own compiled catalog
    fr = subprocess.run([cristal, "--lang", "fr", "--db", "t.db", "session", "end"], cwd=work, env=env,
                        capture_output=True, text=True)
    assert fr.returncode == 1 and fr.stderr == "Erreur : Aucune session n'est ouverte.\n"


WHERE = ("import cristal_events, migrations, projections\n"
         "from cristal_events import migrations as ours, projections as our_projections, sample_campaigns\n"
         "from cristal_events.migrate import available\n"
         "from cristal_events.rulesets.cristal.content import load_core\n"
         "print(json.dumps({'package': cristal_events.__file__, 'ours': ours.__file__,\n"
         "  'our_projections': our_projections.__file__, 'samples': sample_campaigns.__file__,\n"
         "  'theirs': [migrations.WHO, projections.WHO, migrations.__file__],\n"
         "  'shipped': [m.name for m in available()], 'races': len(load_core().races)}))\n")


@pytest.mark.slow
def test_wheel_installs_inside_its_namespace_beside_packages_of_the_same_name(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=IGNORE)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path / "dist"), str(src)],
                   check=True, cwd=tmp_path)
    shutil.rmtree(src)  # prove nothing is read from the source tree
    (wheel,) = (tmp_path / "dist").glob("cristal_events-*.whl")
    tops = {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"cristal_events"}
    names = zipfile.ZipFile(wheel).namelist()
    assert "cristal_events/migrations/0001_event_log.sql" in names
    assert "cristal_events/migrations/postgres/0001_event_log.sql" in names  # the PostgreSQL schema (issue 20)
    assert "cristal_events/sample_campaigns/compagnie_du_cristal.toml" in names
    assert "cristal_events/projections/runner.py" in names
    for lang in ("fr", "en"):  # the compiled catalogs of the two languages (issue 18 item 4)
        assert f"cristal_events/locale/{lang}/LC_MESSAGES/cristal_events.mo" in names
        assert f"cristal_events/rulesets/cristal/locale/{lang}/LC_MESSAGES/cristal_rules.mo" in names  # its own
        assert f"cristal_events/rulesets/illergan/locale/{lang}/LC_MESSAGES/illergan_rules.mo" in names

    py, site = _fresh_venv(tmp_path)
    _dummy_packages(site)
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--ignore-installed", str(wheel)], check=True,
                   cwd=tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CRISTAL_DB")}
    where = subprocess.run([str(py), "-c", "import json\n" + WHERE], cwd=work, env=env, capture_output=True, text=True)
    assert where.returncode == 0, where.stderr
    got = json.loads(where.stdout)
    inside = site / "cristal_events"
    assert got["package"] == str(inside / "__init__.py")
    assert got["ours"] == str(inside / "migrations" / "__init__.py")
    assert got["our_projections"] == str(inside / "projections" / "__init__.py")
    assert got["samples"] == str(inside / "sample_campaigns" / "__init__.py")
    assert got["theirs"] == ["the other project: migrations", "the other project: projections",
                             str(site / "migrations" / "__init__.py")]
    assert "0001_theirs.sql" not in got["shipped"] and got["shipped"][0] == "0001_event_log.sql"
    assert got["races"] == 3
    _run_demo(py.parent.parent, work, inside / "sample_campaigns")


@pytest.mark.slow
def test_editable_install_reads_the_checkout_beside_packages_of_the_same_name(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=IGNORE)
    py, site = _fresh_venv(tmp_path)
    _dummy_packages(site)
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--ignore-installed", "-e", str(src)], check=True,
                   cwd=tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CRISTAL_DB")}
    where = subprocess.run([str(py), "-c", "import json\n" + WHERE], cwd=work, env=env, capture_output=True, text=True)
    assert where.returncode == 0, where.stderr
    got = json.loads(where.stdout)
    assert got["package"] == str(src / "cristal_events" / "__init__.py")
    assert got["ours"] == str(src / "migrations" / "__init__.py")
    assert got["our_projections"] == str(src / "projections" / "__init__.py")
    assert got["samples"] == str(src / "sample_campaigns" / "__init__.py")
    assert got["theirs"] == ["the other project: migrations", "the other project: projections",
                             str(site / "migrations" / "__init__.py")]
    assert got["shipped"][0] == "0001_event_log.sql" and "0001_theirs.sql" not in got["shipped"]
    _run_demo(py.parent.parent, work, src / "sample_campaigns")


def test_every_benchmark_pointer_in_the_code_names_an_entry_of_benchmarks_readme():
    """The code keeps a reason and a pointer ("see benchmarks/README.md, 'chunk size'"); the figures live in
    the README's "Figures the code points to", one entry per name."""
    import re

    readme = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    entries = set(re.findall(r"^\* \*\*([^*]+)\*\* \(", readme, flags=re.M))
    pointers = {name for folder in ("cristal_events", "projections") for path in (ROOT / folder).rglob("*.py")
                for name in re.findall(r"see benchmarks/README\.md, '([^']+)'", path.read_text(encoding="utf-8"))}
    assert {"chunk size", "time-ordered ids", "decoders on demand", "one union", "dice nodes"} <= pointers
    assert pointers <= entries, pointers - entries
