"""The site walk's shortcuts give what the generic code gives (issue 20: the HTML export of the 1M
campaign): a large map's changes looked for first at the keys the event names, the characters an
event names found by cutting its JSON at its quotes, the characters' map read without a copy, the
names and the chart points read again only from a changed character object."""

from __future__ import annotations

import importlib
from dataclasses import dataclass

import msgspec
import pytest

from cristal_events.jobs import page, site_walk
from cristal_events.jobs.diff import diff

walk = importlib.import_module("cristal_events.jobs.walk")  # the module (jobs exports its function as walk)


@dataclass
class Rec:
    """What the shortcuts read of a recorded event."""

    payload: str
    stream: str = "campaign"


class Hero(msgspec.Struct):
    id: str
    name: str
    pv: int = 10


def _base(n: int = 300) -> dict[str, Hero]:
    return {f"c{i}": Hero(f"c{i}", f"Hero {i}", i) for i in range(n)}


def _changed(base: dict[str, Hero], *keys: str) -> dict[str, Hero]:
    after = dict(base)
    for k in keys:
        after[k] = msgspec.structs.replace(base[k], pv=-1)
    return after


@pytest.mark.parametrize("changed, named", [
    (("c17",), ["c17"]),                 # the event names the key it changed
    (("c17",), ["c200"]),                # it names another one: looked for everywhere
    (("c17", "c250"), ["c17"]),          # it names one of the two it changed
    (("c3", "c4", "c299"), ["c3", "c4", "c299", "nobody"]),
    ((), ["c5"]),                        # a copy of the map, nothing changed
])
def test_a_large_maps_changes_are_diffs_whichever_keys_the_event_names(changed, named):
    base = _base()
    after = _changed(base, *changed)
    rec = Rec(msgspec.json.encode({"who": named, "note": "x"}).decode())
    site_walk._SEEN.clear()
    for _ in range(2):  # the second time from the kept lists: the first left them as they were
        out: list = []
        site_walk._diff(base, after, ("characters",), out, site_walk.Hint(rec))
        assert out == diff(base, after, ("characters",))
    assert len(out) == len(changed)
    assert list(after.values()) == site_walk._entry(after)[2]  # the later map's kept values, put back


def test_a_large_map_that_grew_or_was_chained_gives_the_diff_at_each_step():
    """Maps that follow each other (an event's after is the next one's before), one growing, share
    their positions; each step is still the generic diff."""
    site_walk._SEEN.clear()
    maps = [_base()]
    maps.append(_changed(maps[-1], "c1"))
    maps.append({**maps[-1], "new": Hero("new", "New")})
    maps.append(_changed(maps[-1], "new", "c2"))
    maps.append(dict(maps[-1]))
    maps.append(_changed(maps[-1], "c299"))
    hints = ["c1", "new", "new c2", "", "nobody"]
    for before, after, words in zip(maps, maps[1:], hints):
        out: list = []
        site_walk._diff(before, after, (), out, site_walk.Hint(Rec(msgspec.json.encode(words.split()).decode())))
        assert out == diff(before, after, ())


@pytest.mark.parametrize("payload", [
    {"attacker": "thor", "target": "york", "note": "thor"},
    {"thor": "a key, not a name", "party": ["york", {"deep": ["thor"]}]},
    {"quote": 'say "thor"', "who": "york"},             # a backslash: decoded
    {"who": "th\u00e9o", "tab": "thor\tx"},
    {"numbers": [1, 2.5, None, True], "who": ""},
])
@pytest.mark.parametrize("spaced", [False, True])
def test_the_characters_an_event_names_are_the_generic_walks(payload, spaced):
    text = msgspec.json.encode(payload).decode()
    if spaced:  # JSON written by another tool, with spaces around its colons
        text = text.replace('":', '" : ')
    known = {"thor": 1, "york": 2, "th\u00e9o": 3, "a key, not a name": 4}
    changes = [{"path": ["characters", "york", "pv"], "before": 1, "after": 2}]
    for stream in ("campaign", "character:theo"):
        rec = Rec(text, stream)
        assert site_walk.involved_in(rec, changes, known) == walk.involved(rec, changes, known)  # type: ignore[arg-type]


def test_the_characters_map_is_read_without_a_copy_only_for_the_composed_rulesets_method():
    class State(msgspec.Struct):
        characters: dict[str, Hero]

    state = State(_base(3))

    from cristal_events.ruleset import ComposedRuleset

    class Composed(ComposedRuleset):
        def initial_state(self, header):
            return State({})

    class Own(Composed):
        def characters(self, state):  # a ruleset of its own: what it returns is what is read
            return {k: v for k, v in state.characters.items() if k != "c0"}

    class Camp:
        def __init__(self, ruleset):
            self.ruleset = ruleset

    composed = Composed.__new__(Composed)
    own = Own.__new__(Own)
    assert site_walk.Characters(Camp(composed))(state) is state.characters
    read = site_walk.Characters(Camp(own))(state)
    assert read is not state.characters and list(read) == ["c1", "c2"]


def test_names_and_points_follow_a_renamed_and_hurt_character():
    """The collector reads a name or a PV again only from another character object: a rename, a
    wound, a character who leaves the state keep the generic answer."""

    class State(msgspec.Struct):
        characters: dict[str, Hero]

    @dataclass
    class World:
        rules: State

    @dataclass
    class R:
        position: int

    from cristal_events.ruleset import ComposedRuleset

    class Composed(ComposedRuleset):
        def initial_state(self, header):
            return State({})

    class Camp:
        ruleset = Composed.__new__(Composed)

    col = page._Collector.__new__(page._Collector)
    col.camp, col.chars, col.names, col._named = Camp(), site_walk.Characters(Camp()), {}, {}
    col.pv, col._pv_of = {}, {}
    s1 = State({"a": Hero("a", "Ann", 5), "b": Hero("b", "Bob", 7)})
    s2 = State({**s1.characters, "a": msgspec.structs.replace(s1.characters["a"], name="Anna", pv=3)})
    s3 = State({"a": s2.characters["a"]})  # Bob left
    got = []
    for i, st in enumerate((s1, s2, s3)):
        step = site_walk.SiteStep(R(i + 1), "", None, None, World(st), [], tuple(st.characters))
        names = col.session_names(step.after.rules)
        got.append(dict(names))
        col._points(step, "PV", col.pv, col._pv_of)
    assert got == [{"a": "Ann", "b": "Bob"}, {"a": "Anna", "b": "Bob"}, {"a": "Anna"}]
    assert col.names == {"a": "Anna", "b": "Bob"}  # the index keeps the last name a state gave
    generic: dict = {}
    for i, st in enumerate((s1, s2, s3)):
        page._add_points(Camp(), site_walk.SiteStep(R(i + 1), "", None, None, World(st), [], tuple(st.characters)),
                         "PV", generic)
    assert col.pv == generic == {"a": [(1, 5), (2, 3)], "b": [(1, 7)]}
