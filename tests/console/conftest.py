"""The console's fixtures: the real sample campaigns, built by their scripts."""

from __future__ import annotations

from pathlib import Path

import pytest
from console_helpers import build


@pytest.fixture
def brigands(tmp_path: Path) -> Path:
    """Les Brigands de la forêt: Lia and Brok after two sessions and the fight 'gue'."""
    return build(tmp_path, "brigands_de_la_foret.toml")


@pytest.fixture
def brigands_on(tmp_path: Path, backend: str) -> Path | str:
    """Les Brigands de la forêt on each backend: an SQLite file, or a campaign of a PostgreSQL database."""
    return build(tmp_path, "brigands_de_la_foret.toml", None if backend.endswith(".db") else backend)


@pytest.fixture
def gue_des_loups(tmp_path: Path) -> Path:
    """The Illergan sample campaign."""
    return build(tmp_path, "illergan_gue_des_loups.toml")
