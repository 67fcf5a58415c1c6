"""Where an export may be written: never onto a campaign, never over a file it did not write.

Python API::

    check_output("t.md", "md", campaign="taverne.db", force=False)   # raises CristalError, or returns
    with output_file("t.md", "md") as fh:                             # a temporary file beside t.md,
        write_markdown(camp, steps, fh)                               # renamed over it at the end,
                                                                      # with the marker of the format

An existing file is "a previous export of this kind" when it is empty, or when it looks like what the
export of that format writes: for ``jsonl`` a first line that is an exported event (its envelope and
payload), for ``csv`` the export's header row, for ``md`` and ``html`` the marker comment written at
the end of the file (:func:`marker`). Anything else needs ``force``. A SQLite file (any campaign, the
campaign being exported, its ``-wal``/``-shm``/``-journal`` companions) is refused even with ``force``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

import msgspec

from ..errors import CristalError
from ..i18n import _

SQLITE_HEADER = b"SQLite format 3\x00"
_COMPANIONS = ("-wal", "-shm", "-journal")
_TAIL = 512  # the marker is looked for in this many last bytes


def marker(fmt: str) -> str:
    """The comment ending every Markdown and HTML export written to a file (invisible once rendered)."""
    return f"<!-- cristal-events export timeline {fmt} -->"


def is_sqlite(path: Path) -> bool:
    """True when ``path`` starts with the SQLite header (a campaign or any other database)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def _sqlite_companion(path: Path) -> bool:
    for suffix in _COMPANIONS:
        if path.name.endswith(suffix) and is_sqlite(path.with_name(path.name[:-len(suffix)])):
            return True
    return False


def previous_export(path: Path, fmt: str) -> bool:
    """True when ``path`` is empty or holds what an export in ``fmt`` writes (see the module's text)."""
    from ..exchange import ENVELOPE
    from .exports import CSV_COLUMNS

    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size == 0:
                return True
            if fmt in ("md", "html"):
                fh.seek(max(0, size - _TAIL))
                return marker(fmt).encode() in fh.read()
            first = fh.readline(1 << 20).strip()
    except OSError:
        return False
    if fmt == "csv":
        return first == ",".join(CSV_COLUMNS).encode()
    if fmt == "jsonl":
        try:
            line = msgspec.json.decode(first)
        except msgspec.DecodeError:
            return False
        return isinstance(line, dict) and all(k in line for k in (*ENVELOPE, "payload"))
    return False


def check_output(output: str, fmt: str, *, campaign: str | os.PathLike[str] | None = None,
                 force: bool = False) -> Path:
    """Refuse, in one sentence, an output path an export must not write to; return it as a Path."""
    if not output.strip():
        raise CristalError(_("-o needs a file name (or leave it out to write to standard output); nothing was "
                             "written."))
    path = Path(output)
    if path.is_dir():
        raise CristalError(_("{path} is a folder; give -o a file name; nothing was written.").format(path=path))
    if not path.parent.is_dir():
        raise CristalError(_("The folder {parent} does not exist; nothing was written.").format(parent=path.parent))
    if campaign is not None and path.exists() and Path(campaign).exists() and os.path.samefile(path, campaign):
        raise CristalError(_("{path} is the campaign being exported; an export never writes over it; nothing "
                             "was written.").format(path=path))
    if campaign is not None and any(os.path.abspath(output) == os.path.abspath(str(campaign) + s) for s in _COMPANIONS):
        raise CristalError(_("{path} belongs to the campaign being exported; nothing was written.").format(path=path))
    if is_sqlite(path) or _sqlite_companion(path):
        raise CristalError(_("{path} is an SQLite database (a campaign?); an export never writes over one, "
                             "even with --force; nothing was written.").format(path=path))
    if path.exists() and not force and not previous_export(path, fmt):
        raise CristalError(_("{path} exists and is not a previous {fmt} export; choose another name, or add "
                             "--force to replace it; nothing was written.").format(path=path, fmt=fmt))
    return path


@contextmanager
def output_file(path: Path, fmt: str) -> Iterator[TextIO]:
    """Write to a new temporary file beside ``path`` (created with the umask's permissions), end it with
    the format's marker when it has one, and rename it over ``path`` only when the block succeeds."""
    tmp = path.with_name(f".{path.name}.part-{os.urandom(4).hex()}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as exc:
        raise CristalError(_("Cannot write {path}: {strerror}; nothing was written.").format(path=path, strerror=exc.strerror)) from None
    try:
        with open(fd, "w", encoding="utf-8", newline="") as fh:
            yield fh
            if fmt in ("md", "html"):
                fh.write(f"\n{marker(fmt)}\n")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise CristalError(_("Cannot write {path}: {strerror}; nothing was written.").format(path=path, strerror=exc.strerror)) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
