"""The HTML site's pages are the same bytes as the plain rendering wrote them (issue 20, ninth session:
the cold export's CPU an event): an escape in one function, the change lines made from parts escaped
once a page, the structs compared by a comparer made for their class. The reference below is the
rendering as it was before those levers (``html.escape(visible(...))`` of each text, each change line
``render_change``), walked by the generic walk; the site the export writes must equal it file by file,
on a generated campaign with hostile texts added, in English and in French."""

from __future__ import annotations

import html
import importlib
from typing import Any

import msgspec
import pytest
from helpers import bench_generator

from cristal_events import i18n
from cristal_events.display import visible
from cristal_events.jobs import page, site_walk
from cristal_events.jobs.diff import diff, render_change
from cristal_events.rulesets.cristal import characters as C
from cristal_events.service import Campaign, RecordNote

walk = importlib.import_module("cristal_events.jobs.walk")  # the module (jobs exports its function as walk)

HOSTILE = ["<script>alert(1)</script>", "O'Neil & \"Fils\"", "ligne\nsuivante", "\x1b[2Jfin", "\u202eevil",
           "tab\there", "zéro\u200blargeur", "é" * 58 + "<&>", "x" * 59 + "&", "a\x85b", "\ud800", "", "plain"]


def reference_esc(text: Any) -> str:
    """The escape as it was: the visible form, then ``html.escape`` with quotes."""
    return html.escape(visible(text), quote=True)


def reference_event_item(s: Any, line: page._ChangeLines) -> str:
    """An event's line as it was written before the ninth session's levers."""
    n = len(s.changes)
    if n:
        changes = "".join([f"<li>{reference_esc(render_change(c))}</li>" for c in s.changes])
        folded = (f'<details class="changes"><summary>{page.words(line.count(n))}</summary>'
                  f"<ul>{changes}</ul></details>")
    else:
        folded = ""
    rec = s.rec
    return (f'<li id="e{rec.position}" data-type="{reference_esc(rec.type)}"><span class="pos">#{rec.position}</span>'
            f'<span class="actor">{reference_esc(rec.actor)}</span><span class="summary">{reference_esc(s.told)}</span>'
            f"{folded}</li>")


class Word(str):
    """A string subclass, as a caller might hand one."""


@pytest.mark.parametrize("text", [*HOSTILE, 12, -3, None, True, 1.5, Word("a<b"), ["x", "<"]])
def test_esc_is_html_escape_of_the_visible_text(text):
    assert page.esc(text) == reference_esc(text)


def test_the_escape_of_a_text_is_the_escapes_of_its_parts():
    """What the change lines rely on: esc maps each character on its own."""
    for a in HOSTILE:
        for b in HOSTILE:
            assert page.esc(a + b) == page.esc(a) + page.esc(b)


def _changes() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, v in enumerate(HOSTILE):
        out.append({"path": ["characters", v, "name"], "before": v, "after": HOSTILE[-1 - i]})
        out.append({"path": ["characters", "c1", v], "before": i, "after": v})
    out += [
        {"path": ["characters", "c1", "pv"], "before": -3, "after": 12},
        {"path": ["x", 1], "before": 1, "after": 2},        # an index in the path: not kept
        {"path": ["x", True], "before": 1, "after": 2},     # equal to the path above as a tuple, read otherwise
        {"path": ["x", 1.0], "before": 1, "after": 2},
        {"path": ["x", 1], "before": 1, "after": 2},
        {"path": ["flag"], "before": True, "after": False},
        {"path": ["gone"], "before": None, "after": None},
        {"path": ["new"], "before": None, "after": 5},
        {"path": ["new"], "before": "a", "after": None},
        {"path": ["f"], "before": 1.5, "after": 2.5},
        {"path": ["w"], "before": Word("<a>"), "after": "b"},
        {"path": ["items"], "before": [{"name": "Épée"}], "after": [{"name": "Épée"}, {"name": "<Fouet>"}]},
        {"path": ["last"], "before": None, "after": {"target": "o'neil", "att": 4}},
        {"path": ["last"], "before": {"name": "<x>"}, "after": None},
        {"path": ["faces"], "before": (1, 2), "after": (3, 4)},
    ]
    return out


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_change_item_is_the_escaped_render_change(lang):
    with i18n.use(lang):
        line = page._ChangeLines()
        for change in _changes() * 2:  # the second time from the page's caches
            assert line.item(change) == f"<li>{reference_esc(render_change(change))}</li>", change
        assert line.opening(3) == (f'<details class="changes"><summary>{page.words(line.count(3))}</summary>'
                                   "<ul>")


def test_a_sentence_whose_fields_come_in_another_order_is_escaped_whole(monkeypatch):
    line = page._ChangeLines()
    line.arrow, line.parts = "{after} <- {before} ({path})", None
    change = {"path": ["a", "<b>"], "before": 1, "after": "o'"}
    assert line.item(change) == f"<li>{reference_esc(line(change))}</li>"
    assert line.item(change) == "<li>o&#x27; &lt;- 1 (a.&lt;b&gt;)</li>"


class Roll(msgspec.Struct, frozen=True):
    expr: str = ""
    faces: tuple[int, ...] = ()


class Fighter(msgspec.Struct, frozen=True):
    pv: int = 0
    name: str = ""
    roll: Roll | None = None
    stats: dict[str, int] = {}
    items: list[dict[str, Any]] = []
    ratio: float = 0.0


class LoudFighter(Fighter, frozen=True):
    shout: str = ""


class Empty(msgspec.Struct, frozen=True):
    pass


def test_the_comparer_made_for_a_struct_class_finds_what_diff_finds():
    base = Fighter(3, "Brom", Roll("1d6", (2,)), {"ATT": 4}, [{"name": "Épée", "qty": 1}], 0.5)
    others = [
        msgspec.structs.replace(base, pv=-1),
        msgspec.structs.replace(base, roll=Roll("1d20", (2,))),
        msgspec.structs.replace(base, roll=Roll("1d6", (5,))),
        msgspec.structs.replace(base, roll=None),
        msgspec.structs.replace(base, stats={"ATT": 5, "DP": 2}),
        msgspec.structs.replace(base, items=[{"name": "Épée", "qty": 2}]),
        msgspec.structs.replace(base, items=[]),
        msgspec.structs.replace(base, ratio=0.75, name="<Brom>"),
        msgspec.structs.replace(base, pv=True),                       # a bool for an int: another value
        Fighter(3, "Brom", Roll("1d6", (2,)), {"ATT": 4}, [{"name": "Épée", "qty": 1}], 0.5),  # equal, not the same
        LoudFighter(3, "Brom", Roll("1d6", (2,)), {"ATT": 4}, [{"name": "Épée", "qty": 1}], 0.5, "ho"),  # another class
        None,
    ]
    for after in others:
        for a, b in ((base, after), (after, base)):
            out: list = []
            site_walk._diff(a, b, ("fighters", "brom"), out)
            assert out == diff(a, b, ("fighters", "brom")), (a, b)
    out = []
    site_walk._diff(Empty(), Empty(), (), out)
    assert out == []
    assert site_walk._comparer(Fighter) is site_walk._comparer(Fighter)  # made once per class
    assert site_walk._comparer(dict) is None


# ------------------------------------------------------------------ a whole site, byte for byte
@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """A generated campaign of about 2,500 events, then hostile names, reasons and notes."""
    db = tmp_path_factory.mktemp("bytes") / "c.db"
    bench_generator().generate(db, 2500, quiet=True)
    with Campaign.open(db) as camp:
        camp.start_session(title="<Session> d'O'Neil & \"co\"")
        for i, text in enumerate(HOSTILE[:8]):
            camp.execute(C.CreateCharacter(id=f"evil{i}", race="Humain", name=text or "x", gold=10))
            camp.execute(C.ChangeGold(character=f"evil{i}", amount=i + 1, reason=text))
            camp.execute(RecordNote(text=text or "x", topic="<récit>"))
        camp.execute(C.ChangeGold(character="thor", amount=3, reason="\u202e<b>"))
        camp.execute(C.CreateCharacter(id="o'neil<&>\"", race="Nain", name="O'Neil", gold=1))  # in the paths
        camp.execute(C.ChangeGold(character="o'neil<&>\"", amount=2, reason="<butin>"))
        camp.end_session()
    return db


def _pages(camp: Campaign, steps: Any, writer: Any) -> dict[str, str]:
    written: dict[str, str] = {}

    def keep(name: str, text: str) -> None:
        written[name] = text

    writer(camp, steps, keep)
    return written


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_site_is_the_same_bytes_as_the_plain_rendering(generated, lang, monkeypatch):
    from cristal_events.cli.export import _session_rows

    with Campaign.open(generated, readonly=True) as camp, i18n.use(lang):
        ledger = _session_rows(camp, None, None)
        fast = _pages(camp, None, lambda c, _s, emit: page.export_site(c, emit, ledger=ledger, processes=1))
        with monkeypatch.context() as m:
            m.setattr(page, "esc", reference_esc)
            m.setattr(page, "_event_item", reference_event_item)
            plain = _pages(camp, walk.walk(camp), lambda c, s, emit: page.write_site(c, s, emit, ledger=ledger))
    assert len(fast) > 10 and sum(len(t) for t in fast.values()) > 1_000_000
    assert sorted(fast) == sorted(plain)
    for name in plain:
        assert fast[name] == plain[name], name
    pages = "".join(fast.values())
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages and "<script>" not in pages
    assert "\\u202e" in pages and "\u202e" not in pages  # shown, never acting
    assert "characters.o&#x27;neil&lt;&amp;&gt;&quot;.gold" in pages  # an id in a change's path, escaped


def test_a_map_made_with_one_key_set_is_diffed_as_any_other():
    from cristal_events.maps import with_entry

    base = {f"c{i}": Fighter(i, f"F{i}", None, {"ATT": i}, [], 0.5) for i in range(40)}
    origin = with_entry(base, "c0", base["c0"])
    cases = [
        with_entry(origin, "c7", msgspec.structs.replace(origin["c7"], pv=-3, name="<x>")),
        with_entry(origin, "new", Fighter(99, "New", Roll("1d6", (2,)), {}, [], 1.0)),
        with_entry(origin, "c3", origin["c3"]),  # the same object: nothing changed
        with_entry(origin, "c3", Fighter(3, "F3", None, {"ATT": 3}, [], 0.5)),  # equal, not the same
        with_entry(origin, "c5", 5),  # a number for a struct
    ]
    for after in cases:
        out: list = []
        site_walk._diff(origin, after, ("characters",), out)
        assert out == diff(origin, after, ("characters",)), after
        plain: list = []
        site_walk._diff(dict(origin), dict(after), ("characters",), plain)  # without the origin's record
        assert out == plain
