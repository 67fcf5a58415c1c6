"""Shared fixtures: a fresh campaign file per test, and a CLI runner bound to it."""

from __future__ import annotations

import os

# the tests assert English sentences: they run in English whatever the machine's locale, unless a test
# picks French itself (--lang fr, CRISTAL_LANG, cristal_events.i18n.use); set before anything imports
os.environ["CRISTAL_LANG"] = "en"

import pytest
from click.testing import CliRunner
from hypothesis import settings

from cristal_events import i18n, init_campaign
from cristal_events.cli import cli

# CI runs the property tests with a fixed derandomised search, so a run can be reproduced exactly;
# locally every run explores new examples.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(autouse=True)
def _language(request, monkeypatch):
    """``@pytest.mark.french``: the test runs in French (the CLI through CRISTAL_LANG, the Python API through
    the context's language), e.g. to hold the French exports and summaries byte-identical to their golden
    files; every other test runs in English."""
    if request.node.get_closest_marker("french") is None:
        yield
        return
    monkeypatch.setenv("CRISTAL_LANG", "fr")
    with i18n.use("fr"):
        yield


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "campaign.db"


@pytest.fixture
def campaign(db_path):
    camp = init_campaign(db_path, name="La Taverne", ruleset="cristal", rounding="round", seed=7)
    yield camp
    camp.close()


class Cli:
    """Runs ``cristal --db <path> ...`` in-process and returns the click Result."""

    def __init__(self, path):
        self.path = path
        self.runner = CliRunner()

    def __call__(self, *args: str, input: str | None = None):
        return self.runner.invoke(cli, ["--db", str(self.path), *args], input=input, catch_exceptions=False)


@pytest.fixture
def run(db_path):
    return Cli(db_path)


# --- PostgreSQL (issue 20): one server per test session, a fresh database per test -----------------
@pytest.fixture(scope="session")
def pg_cluster():
    """The server of CRISTAL_TEST_POSTGRES, or a temporary PostgreSQL 15 cluster started here (stopped
    at the end); without either the PostgreSQL tests FAIL with one sentence, they never skip."""
    from pgcluster import Cluster, ClusterMissing

    try:
        cluster = Cluster.from_env()
    except ClusterMissing as exc:
        pytest.fail(f"No PostgreSQL server for the PostgreSQL tests: {exc}", pytrace=False)
    yield cluster
    cluster.stop()


@pytest.fixture
def pg_url(pg_cluster, tmp_path, monkeypatch):
    """A fresh, empty database owned by the engine's role (not a superuser); its URL. The dice secrets
    of its campaigns go to the test's own folder (CRISTAL_SECRETS_DIR)."""
    monkeypatch.setenv("CRISTAL_SECRETS_DIR", str(tmp_path / "secrets"))
    url = pg_cluster.new_database()
    yield url
    pg_cluster.drop_database(url)


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request, tmp_path):
    """A campaign target on each backend: an SQLite file's path, or a PostgreSQL URL naming a campaign."""
    if request.param == "sqlite":
        return str(tmp_path / "campaign.db")
    from pgcluster import with_campaign

    return with_campaign(request.getfixturevalue("pg_url"), "taverne")
