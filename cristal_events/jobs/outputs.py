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
from collections.abc import Callable, Iterator
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


# ----------------------------------------------------------------------------- a folder (the HTML site)
MANIFEST = ".cristal-export.json"  # the names of the files an HTML export wrote in its folder


def listed_files(folder: Path) -> set[str]:
    """The file names the previous export in ``folder`` listed (see :func:`_manifest`)."""
    return _manifest(folder)


def _manifest(folder: Path) -> set[str]:
    """The file names a previous export recorded in ``folder`` (plain names only; anything else in the
    manifest is ignored, so a hand-edited manifest cannot point an export outside its folder)."""
    try:
        data = msgspec.json.decode((folder / MANIFEST).read_bytes())
    except (OSError, msgspec.DecodeError):
        return set()
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, list):
        return set()
    return {f for f in files if isinstance(f, str) and f and "/" not in f and "\\" not in f and not f.startswith(".")}


def check_folder(output: str, *, campaign: str | os.PathLike[str] | None = None) -> Path:
    """Refuse, in one sentence, a folder an HTML export must not write to; return it as a Path.

    A new folder (its parent must exist), an empty one, or a previous HTML export (it holds the
    manifest) may be written; a file, or a folder holding anything else, is refused, with or without
    ``--force``: the export never writes over files it did not write."""
    if not output.strip():
        raise CristalError(_("-o needs a folder name for an HTML export; nothing was written."))
    path = Path(output)
    if campaign is not None and path.exists() and Path(campaign).exists() and os.path.samefile(path, campaign):
        raise CristalError(_("{path} is the campaign being exported; an export never writes over it; "
                             "nothing was written.").format(path=path))
    if path.exists() and not path.is_dir():
        raise CristalError(_("{path} is a file; an HTML export writes a folder (an index and a page per "
                             "session): give -o a new or empty folder; nothing was written.").format(path=path))
    if not path.exists() and not path.parent.is_dir():
        raise CristalError(_("The folder {folder} does not exist; nothing was written.").format(folder=path.parent))
    if path.is_dir() and not (path / MANIFEST).is_file() and any(path.iterdir()):
        raise CristalError(_("{path} is a folder that is neither empty nor a previous HTML export; choose a "
                             "new or empty folder; nothing was written.").format(path=path))
    return path


@contextmanager
def output_folder(path: Path, fmt: str = "html", *, replacing: Callable[[], None] | None = None,
                  finished: Callable[[], None] | None = None) -> Iterator[Callable[[str, str], None]]:
    """Yield ``emit(name, text)``: each file is written in a hidden folder beside ``path``; when the
    block succeeds they are moved into ``path`` (created if need be), the files of the previous export
    that this one neither writes nor keeps are removed, and the manifest lists what is there now. A
    name that exists in ``path`` without being in the previous export's manifest is refused, and
    nothing is moved. ``replacing()`` runs just before the first file moves, ``finished()`` once the
    folder is complete (the HTML site's cache: :mod:`.site_cache`)."""
    staging = path.with_name(f".{path.name}.part-{os.urandom(4).hex()}")
    written: list[str] = []
    kept: set[str] = set()
    previous: list[set[str]] = []

    class Emit:
        """``emit(name, text)`` writes a file; ``emit.adopt(names)`` counts files another process
        wrote with a fork of this emit (the HTML site's later sessions, :func:`.page.export_site`);
        ``emit.keep(names)`` keeps files of the previous export as they are (the site cache's pages)."""

        def __call__(self, name: str, text: str) -> None:
            with open(staging / name, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
                fh.write(f"{marker(fmt)}\n")
            written.append(name)

        def adopt(self, names: list[str]) -> None:
            written.extend(n for n in names if (staging / n).is_file())

        def keep(self, names: list[str]) -> None:
            if not previous:  # the previous export's list, read once (a site keeps some 3,700 files)
                previous.append(_manifest(path))
            kept.update(n for n in names if n in previous[0])

    emit = Emit()

    try:
        staging.mkdir()
    except OSError as exc:
        raise CristalError(_("Cannot write {path}: {reason}; nothing was written.").format(
            path=path, reason=exc.strerror)) from None
    try:
        yield emit
        path.mkdir(exist_ok=True)
        before = _manifest(path)
        clash = next((n for n in written if (path / n).exists() and n not in before), None)
        if clash is not None:
            raise CristalError(_("{path} was not written by an export; move it away or choose another "
                                 "folder; nothing was written.").format(path=path / clash))
        if replacing is not None:
            replacing()
        _write_manifest(path, sorted(before | set(written)))  # first, so an interruption forgets nothing
        for name in written:
            os.replace(staging / name, path / name)
        now = set(written) | (kept & before)
        for name in sorted(before - now):  # pages a previous export wrote and this one neither writes nor keeps
            old = path / name
            if old.is_file() and previous_export(old, fmt):
                old.unlink()
        _write_manifest(path, sorted(now))
        if finished is not None:
            finished()
    except OSError as exc:
        raise CristalError(_("Cannot write {path}: {reason}; the folder may hold a part of the export; "
                             "export again.").format(path=path, reason=exc.strerror)) from None
    finally:
        for leftover in staging.iterdir() if staging.is_dir() else ():
            leftover.unlink()
        staging.rmdir() if staging.is_dir() else None


def _write_manifest(folder: Path, files: list[str]) -> None:
    tmp = folder / f"{MANIFEST}.part-{os.urandom(4).hex()}"
    tmp.write_bytes(msgspec.json.encode({"export": "cristal-events timeline", "format": "html", "files": files}))
    os.replace(tmp, folder / MANIFEST)
