"""Reading a content-pack file a person wrote, for either ruleset: its size, its encoding, its syntax and
its nesting are checked before any rule sees it, each refusal one :class:`ContentError` sentence.

``read_pack(path)`` returns the parsed JSON or TOML (dicts, lists, texts, numbers); the ruleset then
validates the entries against its own structs. Nothing here touches a campaign.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from .errors import ContentError
from .i18n import _

#: the largest pack file read (the book's whole core content is about 200 kB of JSON)
MAX_PACK_BYTES = 8 * 1024 * 1024
#: the deepest nesting of lists and tables a pack may have (the deepest entry field needs 6)
MAX_DEPTH = 32


def _nan(word: str) -> float:
    raise ValueError(f"{word} is not a number a content pack may hold")


def _too_deep(data: Any) -> bool:
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > MAX_DEPTH:
                return True
            stack.extend((v, depth + 1) for v in (value.values() if isinstance(value, dict) else value))
    return False


def nested_too_deeply(source: str) -> ContentError:
    return ContentError(_("{source}: the content pack is nested too deeply (more than {MAX_DEPTH} levels of "
                          "lists and tables).").format(source=source, MAX_DEPTH=MAX_DEPTH))


def parse_pack(raw: bytes, *, source: str, toml: bool) -> Any:
    """The parsed pack: UTF-8 text, valid JSON (no NaN or Infinity) or TOML, at most :data:`MAX_DEPTH` deep."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ContentError(_("{source}: the content pack is not UTF-8 text (byte {start} is not UTF-8).").format(source=source, start=err.start)) from None
    kind = "TOML" if toml else "JSON"
    try:
        data = tomllib.loads(text) if toml else json.loads(text, parse_constant=_nan)
    except RecursionError:
        raise nested_too_deeply(source) from None
    except ValueError as err:  # json.JSONDecodeError and tomllib.TOMLDecodeError are ValueErrors
        raise ContentError(_("{source}: not valid {kind} ({err}).").format(source=source, kind=kind, err=err)) from None
    if _too_deep(data):
        raise nested_too_deeply(source)
    return data


def read_pack_bytes(path: str | Path) -> bytes:
    """The bytes of a pack file, refused when it is missing, unreadable or larger than :data:`MAX_PACK_BYTES`."""
    p = Path(path)
    if not p.is_file():
        raise ContentError(_("{name}: the content pack does not exist.").format(name=p.name))
    try:
        size = p.stat().st_size
        if size > MAX_PACK_BYTES:
            raise ContentError(_("{name}: the content pack is {size} bytes; a pack is at most {value} MB.").format(name=p.name, size=size, value=MAX_PACK_BYTES // (1024 * 1024)))
        return p.read_bytes()
    except OSError as err:
        raise ContentError(_("{name}: the content pack cannot be read ({strerror}).").format(name=p.name, strerror=err.strerror)) from None


def read_pack(path: str | Path) -> Any:
    """Read and parse one pack file (``.toml`` is TOML, anything else JSON); see :func:`parse_pack`."""
    p = Path(path)
    return parse_pack(read_pack_bytes(p), source=p.name, toml=p.suffix.lower() == ".toml")
