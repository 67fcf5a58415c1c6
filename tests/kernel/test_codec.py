"""Event types and decoding: explicit tags, validation naming the field, upcasting v1 -> v2."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from cristal_events.codec import Codec
from cristal_events.errors import EventDecodeError
from cristal_events.events import CORE_EVENTS, CORE_UPCASTERS, Event, SessionStarted, tag_of
from cristal_events.rulesets import get, names
from cristal_events.service import codec_for

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "events_v1.jsonl"


def all_event_classes():
    seen = list(CORE_EVENTS)
    for name in names():
        seen.extend(get(name).events)
    return seen


@pytest.mark.parametrize("cls", all_event_classes(), ids=lambda c: c.__name__)
def test_every_event_has_an_explicit_stable_tag(cls):
    tag = tag_of(cls)
    assert tag != cls.__name__
    assert "." in tag
    assert cls.__struct_config__.frozen
    assert isinstance(cls.version, int) and cls.version >= 1


def test_the_frozen_v1_fixture_always_decodes():
    codec = Codec(CORE_EVENTS, CORE_UPCASTERS)
    rows = [msgspec.json.decode(line) for line in FIXTURE.read_bytes().splitlines()]
    events = [codec.decode(r["type"], r["schema_version"], msgspec.json.encode(r["payload"])) for r in rows]
    assert events[0] == SessionStarted(number=1, title="La taverne du Cristal", in_game_date="3 Floréal")
    assert events[1].number == 1


def test_v1_rows_in_a_campaign_are_upcast_on_read(campaign):
    rows = []
    for line in FIXTURE.read_bytes().splitlines():
        r = msgspec.json.decode(line)
        rows.append({"event_id": f"fixture-{len(rows)}", "stream": r["stream"], "version": campaign.store.stream_version("campaign") + 1 + len(rows),
                     "type": r["type"], "schema_version": r["schema_version"],
                     "payload": msgspec.json.encode(r["payload"]).decode(), "recorded_at": "2020-01-01T00:00:00+00:00",
                     "session": 1, "actor": "GM", "causation_id": None, "correlation_id": None})
    campaign.store.append_rows(rows)
    recs = list(campaign.store.read_all(after=1))
    assert recs[0].schema_version == 1
    assert recs[0].event.title == "La taverne du Cristal"
    assert recs[0].event.in_game_date == "3 Floréal"
    assert campaign.verify().ok


def test_bad_payload_names_the_field():
    codec = Codec(CORE_EVENTS, CORE_UPCASTERS)
    with pytest.raises(EventDecodeError, match=r"Invalid 'session.started' payload: Expected `int`, got `str` - at `\$.number`"):
        codec.decode("session.started", 2, b'{"type": "session.started", "number": "un"}')


def test_unknown_type_and_newer_version_are_errors():
    codec = Codec(CORE_EVENTS, CORE_UPCASTERS)
    with pytest.raises(EventDecodeError, match="Unknown event type 'xp.teleported'"):
        codec.decode("xp.teleported", 1, b"{}")
    with pytest.raises(EventDecodeError, match="stored at schema version 3, newer than this engine's 2"):
        codec.decode("session.started", 3, b'{"type": "session.started", "number": 1}')


def test_a_class_without_explicit_tag_is_rejected():
    class Bare(Event):  # tag_field inherited, default tag = class name
        x: int = 0

    with pytest.raises(TypeError, match="must declare an explicit tag"):
        Codec([Bare])


@pytest.mark.parametrize("ruleset", names())
def test_json_schema_lists_every_event_type(ruleset):
    schema = codec_for(get(ruleset)).json_schema()
    defs = schema["$defs"]
    for cls in CORE_EVENTS + tuple(get(ruleset).events):
        assert cls.__name__ in defs
        assert defs[cls.__name__]["properties"]["type"]["enum"] == [tag_of(cls)]


def test_a_decoder_is_built_per_event_type_on_first_use():
    """A command reads a few event types: only their classes are inspected by msgspec (start-up)."""
    codec = codec_for(get("cristal"))
    assert codec.decoders == {}
    ev = codec.decode("session.started", SessionStarted.version, b'{"type":"session.started","number":2}')
    assert ev == SessionStarted(number=2) and set(codec.decoders) == {"session.started"}
    with pytest.raises(EventDecodeError, match="Unknown event type 'nope.never'"):
        codec.decoder("nope.never")


def test_a_payload_whose_tag_is_not_its_type_column_is_refused(tmp_path):
    """Each row is decoded as the class its ``type`` column names: a payload of another type stored
    under it (written outside the engine) is an error naming the type, not another event."""
    import sqlite3

    from cristal_events import init_campaign, open_campaign

    camp = init_campaign(tmp_path / "c.db", name="C", ruleset="cristal")
    camp.start_session("Une")
    camp.close()
    conn = sqlite3.connect(tmp_path / "c.db", isolation_level=None)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("UPDATE events SET type = 'session.ended' WHERE position = 2")
    conn.close()
    camp = open_campaign(tmp_path / "c.db", readonly=True)
    with pytest.raises(EventDecodeError, match="'session.ended'"):
        list(camp.store.read_all())
    camp.close()
