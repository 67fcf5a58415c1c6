"""The ruleset's data files (``data/*.json``, shipped in the wheel), read as bytes for msgspec to decode.

With ``os.path`` rather than ``pathlib``: pathlib imports ``urllib.parse`` (with ``ipaddress``) and
``fnmatch``, 2-3 ms of a one-shot command's start-up that nothing else on a write needs
(benchmarks/README.md, "Ninth session: the one-shot CLI write")."""

from __future__ import annotations

import os

#: the folder of the data files
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def read(name: str) -> bytes:
    """The bytes of ``data/<name>``."""
    with open(os.path.join(DATA, name), "rb") as f:
        return f.read()
