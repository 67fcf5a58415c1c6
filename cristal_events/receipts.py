"""Receipts: tamper evidence kept outside the campaign file.

A receipt is ``POSITION:HASH``, an event's position and its chain hash. Each hash covers the event
and, through ``prev_hash``, every event before it, so a receipt kept by the table (printed by
``cristal session end`` and ``cristal receipt``, shown in the recaps, carried by a JSONL export)
commits to the whole log up to its position. Someone holding the file can drop the append-only
triggers, edit an event and recompute the whole chain, or cut the log's end: every check made on the
file alone still passes, but the log no longer holds the receipt's hash at its position.

Python API::

    r = camp.receipt()                           # Receipt(position, hash) of the last event
    str(r)                                       # "40:3f5a…"
    parse_receipt("40:3f5a…")                    # a ReceiptError sentence when malformed
    read_receipts("recus.txt")                   # one a line; blank lines and # comments allowed
    verify_receipts([r], camp.store.hash_at, camp.store.last_position())   # [] when all hold
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

import msgspec

from .errors import CristalError
from .i18n import _
from .patterns import pattern  # compiled when first used

#: a receipt, optionally after the "Reçu :" that ``session end`` and ``cristal receipt`` print before it
_RECEIPT = pattern(r"(?:(?:Reçu|Receipt)\s*:\s*)?([0-9]{1,19}):([0-9a-fA-F]{64})")
_MAX_POSITION = 2**63 - 1


class ReceiptError(CristalError):
    """A receipt (or a file of receipts) that cannot be read."""


class Receipt(msgspec.Struct, frozen=True):
    """An event's position and its chain hash: ``str(receipt)`` is ``POSITION:HASH``."""

    position: int
    hash: str

    def __str__(self) -> str:
        return f"{self.position}:{self.hash}"

    @property
    def short(self) -> str:
        """``POSITION:`` and the hash's first 12 digits (for messages)."""
        return f"{self.position}:{self.hash[:12]}…"


class ReceiptProblem(msgspec.Struct, kw_only=True):
    """A receipt the log (or the file) no longer honours."""

    position: int
    receipt: str
    problem: str


def parse_receipt(text: str) -> Receipt:
    """``"40:<64 hex digits>"`` -> Receipt(40, hash) (hash in lower case); the line as printed,
    ``"Reçu : 40:<hash>"``, is accepted too; anything else is one sentence."""
    m = _RECEIPT.fullmatch(text.strip())
    if m is None or not m.group(1).isascii() or not 0 < int(m.group(1)) <= _MAX_POSITION:
        shown = text.strip()
        shown = shown if len(shown) <= 90 else shown[:87] + "..."
        raise ReceiptError(_("{shown!r} is not a receipt: a receipt is POSITION:HASH, an event's position and "
                             "the 64 hexadecimal digits of its hash, as 'cristal receipt' prints it.").format(shown=shown))
    return Receipt(int(m.group(1)), m.group(2).lower())


def read_receipts(path: str | os.PathLike[str]) -> list[Receipt]:
    """The receipts of a text file, one a line; blank lines and ``#`` comments are skipped."""
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except OSError as exc:
        raise ReceiptError(_("Cannot read the receipts file {path}: {strerror}.").format(path=path, strerror=exc.strerror)) from None
    except UnicodeDecodeError:
        raise ReceiptError(_("The receipts file {path} is not UTF-8 text.").format(path=path)) from None
    out = []
    for lineno, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            out.append(parse_receipt(text))
        except ReceiptError as exc:
            raise ReceiptError(_("Line {lineno} of {path}: {exc}").format(lineno=lineno, path=path, exc=exc)) from None
    return out


def verify_receipts(receipts: Iterable[Receipt], hash_at: Callable[[int], str | None], last: int, *,
                    first: int = 1, where: str = "the log") -> list[ReceiptProblem]:
    """The receipts that ``where`` no longer honours: no event at the receipt's position (``last`` is
    where it ends now) or another hash there. ``hash_at`` is e.g. :meth:`Store.hash_at`; ``first`` is
    the first position ``where`` covers (a one-session export starts later)."""
    problems = []
    for r in receipts:
        found = hash_at(r.position)
        if found is None and r.position < first:
            problems.append(ReceiptProblem(position=r.position, receipt=str(r), problem=(
                _("receipt {short}: {where} starts at position {first} and cannot show position {position}").format(short=r.short, where=where, first=first, position=r.position))))
        elif found is None:
            problems.append(ReceiptProblem(position=r.position, receipt=str(r), problem=(
                _("receipt {short}: {where} has no event at position {position} (it ends at {last}): it was "
                  "cut after the receipt was given").format(short=r.short, where=where, position=r.position, last=last))))
        elif found != r.hash:
            problems.append(ReceiptProblem(position=r.position, receipt=str(r), problem=(
                _("receipt {short}: {where} holds another hash at position {position} ({found}…): the log up "
                  "to there was changed after the receipt was given").format(short=r.short, where=where, position=r.position, found=found[:12]))))
    return problems
