"""``store.path_text`` and ``store._parent`` are ``str(Path(p))`` and ``str(Path(p).parent)`` without importing
pathlib (a one-shot command's start-up): the campaign's path shows in messages and ``Store.path`` as before."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cristal_events.store import Store, _parent, path_text

paths = st.lists(st.sampled_from(["", ".", "..", "a", "b.db", "é x", "/", "//", "///"]), max_size=6).map("".join)


@given(paths)
def test_path_text_is_what_pathlib_shows(text):
    assert path_text(text) == str(PurePosixPath(text))
    assert _parent(path_text(text)) == str(PurePosixPath(text).parent)


def test_path_text_takes_a_path_like_and_refuses_bytes(tmp_path):
    assert path_text(tmp_path / "x.db") == str(tmp_path / "x.db")
    with pytest.raises(TypeError):
        path_text(b"x.db")  # type: ignore[arg-type]


def test_a_store_keeps_its_path_as_pathlib_wrote_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store = Store.create(".//camp.db")
    try:
        assert store.path == str(Path(".//camp.db")) == "camp.db"
    finally:
        store.close()
    with pytest.raises(Exception, match="The folder nowhere does not exist"):
        Store.create("./nowhere/x.db")
