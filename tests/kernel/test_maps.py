"""The rules' read-only maps (cristal_events.maps): a copy with one key set that knows its origin, so a
reader of two successive states compares the maps at that key alone; what must hold is that the copy
is the dict ``{**base, key: value}`` in every way a reader or an encoder sees, that it cannot be changed
in place, and that the answer of ``changed_keys`` is given only about the map it was made from."""

from __future__ import annotations

import copy
import gc
import pickle
import weakref

import msgspec
import pytest

from cristal_events.maps import DerivedMap, changed_keys, with_entry


class Sheet(msgspec.Struct, frozen=True):
    characters: dict[str, int]


def test_a_copy_with_one_key_set_is_that_dict_for_every_reader():
    base = {"thor": 1, "york": 2, "lya": 3}
    for key, value in (("york", 20), ("brom", 4), ("thor", 1)):
        made = with_entry(base, key, value)
        expected = {**base, key: value}
        assert made == expected and list(made.items()) == list(expected.items())
        assert msgspec.json.encode(Sheet(made)) == msgspec.json.encode(Sheet(expected))
        decoded = msgspec.json.decode(msgspec.json.encode(Sheet(made)), type=Sheet)
        assert decoded == Sheet(expected) and type(decoded.characters) is dict
        assert msgspec.to_builtins(made) == expected
        for plain in (dict(made), {**made}, made.copy(), copy.copy(made), copy.deepcopy(made),
                      pickle.loads(pickle.dumps(made)), made | {}, {} | made):
            assert plain == expected and type(plain) is dict
            plain["x"] = 0  # a plain copy is writable
    assert base == {"thor": 1, "york": 2, "lya": 3}
    assert with_entry(base, "a", 1) | {"b": 2} == {**base, "a": 1, "b": 2}
    assert DerivedMap.fromkeys("ab", 0) == {"a": 0, "b": 0} and type(DerivedMap.fromkeys("ab")) is dict


@pytest.mark.parametrize("change", [
    lambda m: m.__setitem__("thor", 9), lambda m: m.__delitem__("thor"), lambda m: m.clear(),
    lambda m: m.pop("thor"), lambda m: m.popitem(), lambda m: m.setdefault("new", 1),
    lambda m: m.update({"thor": 9}), lambda m: m.__ior__({"thor": 9}),
])
def test_the_copy_cannot_be_changed_in_place(change):
    made = with_entry({"thor": 1}, "york", 2)
    with pytest.raises(TypeError, match="read-only"):
        change(made)
    assert made == {"thor": 1, "york": 2}


def test_the_changed_key_is_told_only_about_the_map_it_was_made_from():
    plain = {"thor": 1, "york": 2}
    first = with_entry(plain, "york", 3)
    assert changed_keys(plain, first) is None  # a plain dict cannot be referenced weakly: no answer
    second = with_entry(first, "thor", 5)
    assert changed_keys(first, second) == ("thor",)
    assert changed_keys(plain, second) is None  # not its origin
    assert changed_keys(dict(first), second) is None  # an equal map, not the same one
    assert changed_keys(second, first) is None and changed_keys(first, {"thor": 5}) is None
    third = with_entry(with_entry(first, "lya", 1), "lya", 2)
    del first
    gc.collect()
    assert changed_keys({"thor": 1, "york": 3, "lya": 1}, third) is None  # its origin is gone


def test_a_chain_of_copies_keeps_no_earlier_map_alive():
    m = with_entry({"a": 0}, "a", 1)
    first = m
    gone = weakref.ref(first)
    for i in range(100):
        m = with_entry(m, "a", i)
    del first
    gc.collect()
    assert gone() is None and type(m) is DerivedMap and m == {"a": 99}
