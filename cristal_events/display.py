"""Text for a terminal, a Markdown or CSV file: what a user typed is shown, never obeyed.

The log stores every text exactly as it was typed, and ``--json`` prints it exactly (JSON escapes
control characters itself). Every TEXT output renders each character that could act on a terminal or
fake the layout in a visible form, by :func:`visible`:

=====================================  ===============================================
newline (U+000A)                       ``⏎``
carriage return, tab                   ``\\r``, ``\\t``
other C0 controls, DEL, C1 controls    ``\\xNN`` (ESC is ``\\x1b``, BEL ``\\x07``, CSI ``\\x9b``)
format characters (Unicode ``Cf``),    ``\\uNNNN`` (``\\U00NNNNNN`` past U+FFFF): the bidi controls
line and paragraph separators,         U+202A-U+202E and U+2066-U+2069, U+200E/U+200F, U+061C,
lone surrogates                        zero-width space U+200B, word joiner U+2060, BOM U+FEFF,
                                       soft hyphen U+00AD, U+2028/U+2029, the tag characters ...
=====================================  ===============================================

Kept as they are: every printable character, and the zero-width joiner and non-joiner (U+200D,
U+200C), which shape emoji sequences and Persian or Indic words and cannot move text. A backslash
typed by a user is not doubled: the visible form is for reading, ``--json`` has the exact text.

``--json`` output stays exact JSON (a decoder gets the very text back) and is inert too:
:func:`inert_json` writes DEL, C1 and format characters as ``\\uXXXX`` escapes, as JSON encoders
already do for C0.

Ids (a character id, a combat name, a content key, ...) are stricter: :func:`plain_id` refuses any
control or format character (the joiners included), leading or trailing whitespace, and the empty id.

Python API::

    from cristal_events.display import visible, plain_id
    visible("Thor\\x1b[2J")          # 'Thor\\\\x1b[2J'
    plain_id(cmd.id, "Character id")  # the id, or RuleError in one sentence
"""

from __future__ import annotations

import re
from typing import Any

from .errors import RuleError
from .i18n import _
from .patterns import pattern  # compiled when first used

#: every character :func:`visible` renders: C0, DEL, C1, the Unicode format characters (Cf) of
#: Unicode 15.1 but the two joiners U+200C/U+200D, U+2028/U+2029 and lone surrogates. A test checks
#: it against the ``unicodedata`` of the running Python.
_FORMAT = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b\u200e\u200f\u2028-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f\ud800-\udfff"
)
_SHOWN = pattern(f"[\x00-\x1f\x7f-\x9f{_FORMAT}]")
#: what an id may not contain: all of the above, and the two joiners too
_NOT_IN_ID = pattern(f"[\x00-\x1f\x7f-\x9f{_FORMAT}\u200c\u200d]")

_NAMED = {"\n": "⏎", "\r": "\\r", "\t": "\\t"}


def _show(match: re.Match[str]) -> str:
    ch = match.group()
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    if code < 0x20 or 0x7F <= code <= 0x9F:  # C0, DEL, C1
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def visible(text: Any) -> str:
    """``text`` (any value, through ``str``) with every control and format character shown visibly.

    Idempotent, and the result holds no character below U+0020, no DEL, no C1 control and no format
    character but the two joiners, so it can neither move the cursor, change the terminal, reorder
    the line nor start a new one.
    """
    s = text if isinstance(text, str) else str(text)
    if s.isprintable():  # the usual line: no Cc, Cf, Cs, Zl, Zp (nor Co, Cn, Zs but the space) at C speed
        return s
    return _SHOWN.sub(_show, s) if _SHOWN.search(s) else s


_IN_JSON = pattern(f"[\x7f-\x9f{_FORMAT}]")


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def inert_json(text: str) -> str:
    """JSON text (as msgspec writes it) with DEL, the C1 controls and every format character escaped
    as ``\\uXXXX`` too: the same JSON value, exactly, that no terminal acts on and no reader splitting
    lines on U+2028 or U+0085 cuts. (JSON encoders already escape C0 inside strings; the C0 outside
    strings are the layout of indented JSON, kept.)"""
    return _IN_JSON.sub(_json_escape, text) if _IN_JSON.search(text) else text


def id_problem(value: str) -> str | None:
    """Why ``value`` cannot be an id (a clause), or None when it is plain text."""
    if not value.strip():
        return _("cannot be empty")
    m = None if value.isprintable() else _NOT_IN_ID.search(value)  # every character it finds is unprintable
    if m is not None:
        return _("'{visible}' contains {show}, a control or invisible formatting character").format(visible=visible(value), show=_show(m))
    if value != value.strip():
        return _("'{value}' starts or ends with a space").format(value=value)
    return None


def plain_id(value: str, what: str) -> str:
    """``value`` when it can be an id; else one sentence naming ``what`` (e.g. "Character id").

    An id is the handle later commands type and the log's streams are named by: it may not be empty,
    start or end with whitespace, or hold a control or format character (display names may).
    """
    problem = id_problem(value)
    if problem is not None:
        tail = "." if problem == _("cannot be empty") else _("; an id is plain visible text.")
        raise RuleError(f"{what} {problem}{tail}")
    return value
