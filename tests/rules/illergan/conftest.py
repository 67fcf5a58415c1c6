"""Shared fixtures: the core text alone, and the core with the EXAMPLE game-master pack."""

import pytest

from cristal_events.rulesets.illergan.content import Content, core_pack, example_pack, merge


@pytest.fixture(scope="session")
def core() -> Content:
    return Content(core_pack())


@pytest.fixture(scope="session")
def content() -> Content:
    return Content(merge(core_pack(), example_pack(), source="example_pack.json"))
