"""Hostile text is stored exactly and printed as valid JSON; Hypothesis fuzzes event decoding and CLI arguments."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path

import ledger_ruleset as L
import msgspec
import pytest
from click.testing import CliRunner
from conftest import log_fingerprint
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cristal_events import bounds, init_campaign, open_campaign
from cristal_events.cli import cli
from cristal_events.codec import Codec
from cristal_events.display import visible
from cristal_events.errors import CristalError, EventDecodeError
from cristal_events.events import Event
from cristal_events.service import RecordNote, codec_for

HOSTILE = {
    "quotes": "Thor \"le Grand\" l'Ancien `x` «y»",
    "sql": "Robert'); DROP TABLE events;--",
    "html-js": "<script>alert('xss')</script><img src=x onerror=alert(1)>&amp;",
    "markdown": "| a | b |\n# titre\n[lien](javascript:alert(1)) **gras** `code`",
    "csv-formula": "=HYPERLINK(\"http://evil\",\"clic\")",
    "csv-plus-minus-at": "+1+1\t-2\r\n@SUM(A1)",
    "control": "a\x00b\x01c\x07d\x1b[31mrouge\x1b[0m\x7f",
    "rtl": "\u202eedoc\u202c \u200f\u061c عربى \u2066x\u2069",
    "long": "Ω" * 100_000,
    "emoji-combining": "e\u0301 👩‍👩‍👧 \ufeff\u200b",
}


@pytest.mark.parametrize("text", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_text_is_stored_exactly_and_printed_as_valid_json(ledger_db: Path, text: str) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["--db", str(ledger_db), "--actor", text[:200], "note", text, "--topic", text[:50]])
    assert result.exit_code == 0, result.output
    camp = open_campaign(ledger_db, readonly=True)
    rec = list(camp.store.read_all())[-1]
    assert camp.verify().ok
    camp.close()
    assert (rec.event.text, rec.event.topic, rec.actor) == (text, text[:50], text[:200])
    out = runner.invoke(cli, ["--db", str(ledger_db), "log", "--json"])
    assert out.exit_code == 0
    last = json.loads(out.output.splitlines()[-1])
    assert last["payload"]["text"] == text and last["actor"] == text[:200]


@pytest.mark.parametrize("text", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_text_through_the_python_api_round_trips(tmp_path: Path, text: str) -> None:
    camp = init_campaign(tmp_path / "h.db", name=text[:300] or "x", ruleset="ledger")
    camp.execute(L.AwardXp(character=text[:40], amount=3, reason=text), actor=text[:100])
    camp.close()
    camp = open_campaign(tmp_path / "h.db", readonly=True)
    rec = list(camp.store.read_all())[-1]
    assert (camp.header.name, rec.event.reason, rec.event.character, rec.actor) == (text[:300], text, text[:40], text[:100])
    assert rec.stream == f"character:{text[:40]}"
    assert camp.state().rules.xp == {text[:40]: 3}
    camp.close()


def test_text_that_is_not_unicode_is_refused_in_one_sentence(ledger_db: Path) -> None:
    before = log_fingerprint(ledger_db)
    result = CliRunner().invoke(cli, ["--db", str(ledger_db), "note", "a\udcffb"])  # argv bytes that were not UTF-8
    assert result.exit_code == 1
    assert result.output == "Error: Text with characters that are not valid Unicode cannot be stored; nothing was written.\n"
    assert log_fingerprint(ledger_db) == before


# ------------------------------------------------------------------------------ decoding fuzz
CODEC = codec_for(L.RULESET)
TAGS = sorted(CODEC.by_tag)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=6),
    max_leaves=25,
)
field_names = st.sampled_from(["character", "amount", "reason", "what", "rolls", "number", "title", "text", "type",
                               "name", "campaign_id", "ruleset", "seed", "faces", "expr", "total", "source", "part"])
payloads = st.dictionaries(field_names, json_values, max_size=7) | json_values


@settings(max_examples=300, deadline=None)
@given(tag=st.sampled_from(TAGS) | st.text(max_size=20), version=st.integers(-3, 5), payload=payloads)
def test_decoding_arbitrary_json_gives_an_event_or_one_decode_error(tag: str, version: int, payload: object) -> None:
    text = json.dumps(payload)
    try:
        ev = CODEC.decode(tag, version, text)
    except EventDecodeError as exc:
        message = str(exc)
        assert message.endswith(".") and "\n" not in message
        return
    assert isinstance(ev, Event)
    assert msgspec.json.decode(msgspec.json.encode(ev))["type"] in CODEC.by_tag


@settings(max_examples=200, deadline=None)
@given(raw=st.binary(max_size=200), tag=st.sampled_from(TAGS))
def test_decoding_arbitrary_bytes_gives_an_event_or_one_decode_error(raw: bytes, tag: str) -> None:
    try:
        ev = CODEC.decode(tag, CODEC.versions[tag], raw)
    except EventDecodeError:
        return
    assert isinstance(ev, Event)


def from_builtins(codec: Codec, data: object) -> Event:
    """Validate a dict (with its ``type`` tag) into an event of the codec's union, within the bounds of the
    log; the error names the field. (Only this test validates builtins: it lived on ``Codec`` until issue 15.)"""
    try:
        event = msgspec.convert(data, codec.union)
        bounds.check(event, name="Invalid event", sentence=bounds.IMPORTED)
    except msgspec.ValidationError as exc:
        raise EventDecodeError(f"Invalid event: {exc}.") from None
    except bounds.OutOfBounds as exc:
        raise EventDecodeError(str(exc)) from None
    return event


@settings(max_examples=200, deadline=None)
@given(data=payloads)
def test_validating_arbitrary_builtins_gives_an_event_or_one_decode_error(data: object) -> None:
    try:
        ev = from_builtins(CODEC, data)
    except EventDecodeError as exc:
        assert str(exc).startswith("Invalid event: ")
        return
    assert isinstance(ev, Event)


# ----------------------------------------------------------------------------------- CLI fuzz
WORDS = ["note", "log", "verify", "schema", "session", "start", "end", "rebuild", "init", "--json", "--rolls",
         "--stream", "--type", "--session", "--after", "--topic", "--title", "--date", "--file", "--name",
         "--ruleset", "--seed", "--rounding", "--set", "-1", "0", "7", "abc", "campaign", "ledger", "x=1", "",
         "--help", "--version", "--db",
         # numbers no option may take: past 64 bits, past the bounds, NaN, digit separators, other scripts' digits
         "replay", "correct", "--from", "--until", "--reason", str(2**63), str(2**64), str(-(2**64)), "1e308",
         "nan", "inf", "1_0", "١٠", "²", "9" * 400]
argv = st.lists(st.sampled_from(WORDS) | st.text(max_size=12), min_size=1, max_size=6)


@pytest.fixture(scope="module")
def fuzz_home() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="cristal-fuzz-"))
    camp = init_campaign(folder / "c.db", name="Fuzz", ruleset="ledger", seed=1)
    camp.execute(L.AwardXp(character="thor", amount=10))
    camp.close()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(args=argv)
def test_any_cli_arguments_succeed_or_fail_in_one_sentence_leaving_the_log_unchanged(fuzz_home: Path,
                                                                                     args: list[str]) -> None:
    db = fuzz_home / "c.db"
    before = log_fingerprint(db)
    runner = CliRunner()
    scratch = Path(tempfile.mkdtemp(dir=fuzz_home))  # a stray 'init NAME' lands in a scratch folder
    cwd = os.getcwd()
    os.chdir(scratch)
    try:
        result = runner.invoke(cli, ["--db", str(db), *args])
    finally:
        os.chdir(cwd)
        shutil.rmtree(scratch, ignore_errors=True)
    # no traceback: the only exceptions are click's own exits
    assert result.exception is None or isinstance(result.exception, SystemExit), (args, result.exception)
    assert "Internal error" not in result.output, (args, result.output)  # a bug's sentence is still a bug
    if result.exit_code != 0:
        assert result.exit_code in (1, 2)
        assert log_fingerprint(db) == before, args
        lines = result.output.strip().splitlines()
        # a refusal ends with one "Error: ..." line; a group called without its command prints its usage (exit 2)
        assert (lines and lines[-1].startswith("Error:")) or (result.exit_code == 2 and lines[0].startswith("Usage:")), \
            (args, result.output)
    assert open_campaign(db, readonly=True).verify().ok


def test_the_fuzzed_refusals_name_the_problem(tmp_path: Path) -> None:
    # a campaign of its own: the fuzzed arguments above may have opened a session in the shared one
    db = tmp_path / "c.db"
    init_campaign(db, name="Fuzz", ruleset="ledger", seed=1).close()
    result = CliRunner().invoke(cli, ["--db", str(db), "note", "   "])
    assert (result.exit_code, result.output) == (1, "Error: A note needs some text.\n")
    result = CliRunner().invoke(cli, ["--db", str(db), "session", "end"])
    assert (result.exit_code, result.output) == (1, "Error: No session is open.\n")
    with pytest.raises(CristalError):
        init_campaign(db, name="again", ruleset="ledger")


# ------------------------------------------------------------------------------------- exports
@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("hostile") / "h.db"
    camp = init_campaign(path, name="<b>Hostile</b> =1+1", ruleset="ledger")
    camp.start_session(title=HOSTILE["html-js"], in_game_date=HOSTILE["csv-formula"])
    for key, text in HOSTILE.items():
        camp.execute(RecordNote(text=text, topic=key), actor=HOSTILE["csv-plus-minus-at"][:5])
    camp.execute(L.AwardXp(character="thor", amount=5, reason=HOSTILE["csv-formula"]))
    camp.end_session()
    camp.close()
    return path


def _export(db: Path, fmt: str) -> str:
    result = CliRunner().invoke(cli, ["--db", str(db), "export", "timeline", "--format", fmt])
    assert result.exit_code == 0, result.output
    return result.output


def test_csv_export_neutralises_formula_cells(hostile_db: Path) -> None:
    import csv
    import io

    rows = list(csv.reader(io.StringIO(_export(hostile_db, "csv"))))
    cells = [c for r in rows[1:] for c in r]
    assert rows[1:] and all(not c.startswith(("=", "+", "-", "@")) for c in cells)
    # the in-game date and the actor are whole cells: kept, behind a quote that spreadsheets show as text,
    # their control characters shown visibly (the tab of the actor is \t)
    assert "'" + HOSTILE["csv-formula"] in cells
    assert "'" + visible(HOSTILE["csv-plus-minus-at"][:5]) in cells and "'+1+1\\t" in cells
    assert all(c == "" or c[0] not in "\t\r" for c in cells)


def test_html_export_escapes_user_text(hostile_db: Path) -> None:
    page = _export(hostile_db, "html")
    assert "<script>alert('xss')</script>" not in page
    assert "<img src=x onerror" not in page
    assert "&lt;script&gt;" in page or "\\u003cscript" in page


def test_markdown_export_escapes_user_text(hostile_db: Path) -> None:
    text = _export(hostile_db, "md")
    assert "<script>" not in text and "<img" not in text and "<b>Hostile" not in text
    assert "[lien](javascript:alert(1))" not in text


def test_jsonl_export_is_valid_json_and_keeps_the_text_exactly(hostile_db: Path, tmp_path: Path) -> None:
    out = _export(hostile_db, "jsonl")
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[-1] == {"receipt": f"{lines[-2]['position']}:{lines[-2]['hash']}"}  # the receipt trailer
    texts = {d["payload"].get("topic"): d["payload"].get("text") for d in lines[:-1] if d["type"] == "note.recorded"}
    assert texts == {k: v for k, v in HOSTILE.items()}
    (tmp_path / "h.jsonl").write_text(out, encoding="utf-8")
    from cristal_events.exchange import verify_jsonl

    assert verify_jsonl(tmp_path / "h.jsonl").ok


# ----------------------------------------------------------------- content packs and scripts
SCRIPT_WORDS = ["[campaign]", "[[step]]", 'name = "X"', 'ruleset = "cristal"', 'ruleset = "nope"', "seed = 7",
                'run = "xp award"', 'run = "note"', 'run = "nope nope"', 'args = ["thor", "600"]', "args = 5",
                'reason = "r"', 'label = "a"', 'label = "a"', 'dice = [13, 4]', "dice = [\"x\"]", 'actor = "Al"',
                "settings = { chain_attacks = 2 }", 'rounding = "truncate"', "= =", "[step]", 'x = """', ""]


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(st.sampled_from(SCRIPT_WORDS) | st.text(max_size=15), max_size=12))
def test_campaign_scripts_parse_or_fail_with_their_line(lines: list[str]) -> None:
    from cristal_events.cli import script
    from cristal_events.errors import ScriptError

    try:
        parsed = script.parse("\n".join(lines), "fuzz.toml")
        script.check(parsed)
    except ScriptError as exc:  # the one class cli.script raises: "<file>, line N: <reason>."
        assert re.fullmatch(r"fuzz\.toml, line [1-9]\d*: [^\n]+\.", str(exc)), str(exc)


pack_values = st.dictionaries(
    st.sampled_from(["races", "classes", "techniques", "items", "spells", "name", "version", "crystals"]),
    st.lists(st.dictionaries(st.sampled_from(["name", "cost", "stat", "race", "class", "pv", "pm", "weight",
                                              "damage", "level", "effects", "type", "kind"]), json_values,
                             max_size=5), max_size=3) | json_values,
    max_size=5,
) | json_values


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=pack_values)
def test_content_packs_load_or_fail_in_one_sentence(fuzz_home: Path, data: object) -> None:
    from cristal_events.errors import ContentError
    from cristal_events.rulesets.cristal import content

    path = fuzz_home / "pack.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    try:
        merged = content.merge(content.load_core(), content.load_pack(path))
    except ContentError as exc:
        assert str(exc) and "\n" not in str(exc), str(exc)
        return
    assert set(content.load_core().races) <= set(merged.races)
