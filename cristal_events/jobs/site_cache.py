"""The HTML site's cache: an export into a folder that holds an earlier export of the same campaign
walks only what the log gained since.

A game master exports the site after each game night. The log is append-only and hash-chained, so
the pages of the sessions an earlier export wrote stay what they were: the export keeps, in the
site's folder, a small manifest of what it wrote (:data:`CACHE_FILE`, msgpack decoded into the typed
:class:`Manifest`; never pickle: a shared folder is untrusted input), and the next export keeps the
pages before the last one, writes the last one again (its "next" link, and it may have grown),
walks only the log after it, then writes the new sessions' pages, the characters' pages, the index
and the manifest, last. The files are the same bytes as a whole (cold) export of the same log.

The manifest is used only when every check holds (:func:`plan`), otherwise the export is a whole
one, silently: the same :data:`SITE_FORMAT`, package version and code (:func:`code_fingerprint`:
the code, translations and tables that write the pages), the same campaign (its id and its
first row's hash), ruleset and language, a whole-campaign site (no ``--session``, no
``--character``: those are always written whole), the log's row hash at the last kept page's last
position equal to the manifest's (by the chain, every earlier row is unchanged), each kept page
still there as the export left it (a regular file of the same size, modification and change time:
a page a user edited is written again) and named as the export names it, and what a page shows
from outside the chain (its session's receipt, its XP trades from the ledger) unchanged. Nothing in
the manifest makes the export write or delete anything: kept pages are not touched, and the folder
(:func:`.outputs.output_folder`) removes only files its own list names.

Python API::

    n, result = export_folder(camp, Path("site"), ledger=entries)   # full=True: a whole export
    result.incremental, result.kept     # went on from the earlier export? how many pages it kept
    SiteCache.read(Path("site")).previous                           # the manifest, or None
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import msgspec

from ..i18n import current
from ..version import __version__
from ..xp_ledger import LedgerEntry
from .exports import xp_by_session
from .outputs import listed_files, output_folder
from .page import Resume, Run, SessionPage, Summary, export_site, session_file

#: bump whenever page code changes the bytes of a page (jobs/page.py, the rules' narration, the
#: site walk's diff): a site written by another format is written whole again
SITE_FORMAT = 2  # 2: the characters' table and the dice on pages of their own
#: the site's cache, beside the pages (a dot-file: not a page, not in the folder's list of files)
CACHE_FILE = ".cristal-site-cache"


#: the files whose bytes the pages depend on, besides the log: the code, the catalogs, the tables
_CODE_SUFFIXES = (".py", ".mo", ".json", ".toml")


@functools.lru_cache(maxsize=8)
def code_fingerprint(*modules: str) -> str:
    """A digest of the code that writes the pages: every ``.py``, ``.mo`` (the translations),
    ``.json`` and ``.toml`` (the rules' tables) file of the packages of ``modules`` (this package,
    and a ruleset's own when it lives elsewhere), names and bytes. A changed narration, sentence or
    translation changes the pages' bytes without a new package version during development, and
    :data:`SITE_FORMAT` is bumped by hand: the fingerprint makes any such change a whole export.
    About 170 files and 2 MB, read once a process (a few ms)."""
    import hashlib
    import importlib

    digest = hashlib.blake2b(digest_size=16)
    roots: dict[Path, None] = {}
    for name in modules:
        module = importlib.import_module(name.partition(".")[0])
        for root in getattr(module, "__path__", []) or [Path(module.__file__ or "").parent]:
            roots[Path(root).resolve()] = None
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.suffix in _CODE_SUFFIXES and path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(root)).encode() + b"\0")
                digest.update(path.read_bytes())
    return digest.hexdigest()


def _fingerprint(camp: Any) -> str:
    return code_fingerprint(__name__, type(camp.ruleset).__module__)


class PageFile(msgspec.Struct, kw_only=True):
    """One session page as the export left it: its file, its positions, the log's row hash at its
    last position, and the file's size, modification and change times (nanoseconds)."""

    file: str
    key: int | None
    first: int
    last: int
    hash: str
    size: int
    mtime_ns: int
    ctime_ns: int


class CharacterFile(msgspec.Struct, kw_only=True):
    """One character's page as the export left it: its file, the digest of what it was made of
    (:func:`.page.character_digest`) and the file's size, modification and change times."""

    file: str
    digest: str
    size: int = 0
    mtime_ns: int = 0
    ctime_ns: int = 0


class Manifest(msgspec.Struct, kw_only=True):
    """The site cache (:data:`CACHE_FILE`): what the next export needs to go on from this one."""

    site_format: int
    package: str
    code: str  # code_fingerprint: the code, translations and tables that wrote the pages
    campaign: str
    first_hash: str
    ruleset: str
    language: str
    whole: bool  # a whole-campaign site (only those go on)
    pages: list[PageFile]
    #: the index's material at the start of the last page (the pages before it)
    boundary: Summary
    #: the XP ledger's trades of each kept page's session, as the pages show them
    trades: list[tuple[int | None, list[tuple[str, int, int]]]]
    #: each character's page (a page made of the same material, still as written, is kept)
    characters: list[CharacterFile] = []


_DECODER = msgspec.msgpack.Decoder(Manifest)
_ENCODER = msgspec.msgpack.Encoder()


class SiteCache(msgspec.Struct, kw_only=True):
    """An earlier export's manifest read from a site's folder (``previous``: None when there is
    none, when it does not decode, or with ``full``)."""

    folder: Path
    previous: Manifest | None = None

    @classmethod
    def read(cls, folder: Path, *, full: bool = False) -> SiteCache:
        """The cache of ``folder``; ``full`` ignores it (a whole export)."""
        previous = None
        if not full:
            try:
                target = folder / CACHE_FILE
                if stat.S_ISREG(os.lstat(target).st_mode):
                    previous = _DECODER.decode(target.read_bytes())
            except (OSError, msgspec.DecodeError, ValueError):
                previous = None
        return cls(folder=folder, previous=previous)


class Result(msgspec.Struct, kw_only=True):
    """What :func:`export_site_cached` did: ``incremental`` (it went on from an earlier export) and
    ``kept`` (the pages kept as they were); ``manifest``, what the folder's cache will hold."""

    incremental: bool
    kept: int
    manifest: Manifest | None


def _trades(ledger: Iterable[LedgerEntry], keys: Iterable[int | None]) -> list[tuple[int | None, list[tuple[str, int, int]]]]:
    xp = xp_by_session(ledger)
    return [(k, [(c, e, sp) for c, (e, sp) in xp.get(k, {}).items()]) for k in dict.fromkeys(keys)]


def _receipt(receipts: dict[int, Any], key: int | None) -> str:
    return str(receipts[key]) if key in receipts else ""


def plan(camp: Any, cache: SiteCache, listed: set[str], ledger: list[LedgerEntry]) -> Resume | None:
    """Where an export of ``camp`` into the cache's folder goes on from the earlier one, or None
    when any check fails (see the module's text). ``listed``: the files the folder's list names
    (:func:`.outputs.listed_files`); a kept page must be one of them."""
    m = cache.previous
    if m is None or not m.pages:
        return None
    if (m.site_format != SITE_FORMAT or m.package != __version__ or m.code != _fingerprint(camp) or not m.whole
            or m.campaign != camp.header.campaign_id or m.ruleset != camp.ruleset.name
            or m.language != current() or m.first_hash != (camp.store.hash_at(1) or "")):
        return None
    last, kept, b = m.pages[-1], m.pages[:-1], m.boundary
    if len(b.pages) != len(kept) or b.count != last.first - 1 or sum(p.events for p in b.pages) != b.count:
        return None
    expected_first = 1
    for page in m.pages:  # the names the export gives these pages, one after the other from #1
        if page.file != session_file(page.key, page.first) or page.first != expected_first or page.last < page.first:
            return None
        expected_first = page.last + 1
    if camp.store.hash_at(last.last) != last.hash:  # by the chain: every earlier row is the same
        return None
    receipts = camp.session_receipts()
    for page, shown in zip(kept, b.pages):
        if (shown.file, shown.key, shown.first, shown.last) != (page.file, page.key, page.first, page.last):
            return None
        if shown.receipt != _receipt(receipts, page.key) or page.file not in listed:
            return None
        if not _unchanged(cache.folder / page.file, page.size, page.mtime_ns, page.ctime_ns):
            return None
    if any(len(span) != 2 for span in b.seen.values()):  # a character's first and last positions
        return None
    if m.trades != _trades(ledger, (p.key for p in kept)):
        return None
    return Resume(cut=last.first - 1, preceding=kept[-1].file if kept else None, kept=[p.file for p in kept],
                  summary=b)


def last_page_start(camp: Any, end: int) -> int | None:
    """The position where the site's last page starts (the first event of the last session, or of
    the stretch after the last ended session), None for an empty log. A guess the export checks: the
    cache is written only when a page starts there."""
    if end <= 0:
        return None
    last = next(iter(camp.store.read_all(after=end - 1, until=end, decode=False, hashes=False)), None)
    if last is None:
        return None
    if last.session is not None:
        span = camp.store.session_span(last.session)
        return span[0] if span else None
    ends = [p for p, _h in camp.store.session_ends().values() if p <= end]
    return max(ends, default=0) + 1


def export_site_cached(camp: Any, emit: Callable[[str, str], None], cache: SiteCache, *,
                       ledger: list[LedgerEntry], listed: set[str], progress: Any = None,
                       processes: int | None = None) -> tuple[int, Result]:
    """The whole campaign's site (:func:`.page.export_site`), going on from the earlier export the
    cache holds when every check holds (:func:`plan`); returns the number of events and what it did.
    ``emit`` must offer ``keep(names)`` (:func:`.outputs.output_folder`'s); the manifest to write
    once the pages are in place is ``result.manifest`` (:func:`write`)."""
    end = camp.store.last_position()
    resume = plan(camp, cache, listed, ledger)
    run = Run(mark=last_page_start(camp, end), resume=resume)
    if resume is not None and cache.previous is not None:
        run.same_character = _same_character(cache.folder, cache.previous, listed)
    n = export_site(camp, emit, ledger=ledger, progress=progress, processes=processes, run=run)
    manifest = None
    if run.boundary is not None and run.pages and run.pages[-1].first == run.mark:
        kept = run.pages[:-1]
        manifest = Manifest(site_format=SITE_FORMAT, package=__version__, code=_fingerprint(camp),
                            campaign=camp.header.campaign_id,
                            first_hash=camp.store.hash_at(1) or "", ruleset=camp.ruleset.name, language=current(),
                            whole=True, pages=[_page_file(camp, p) for p in run.pages], boundary=run.boundary,
                            trades=_trades(ledger, (p.key for p in kept)),
                            characters=[CharacterFile(file=f, digest=d) for f, d in run.characters])
    return n, Result(incremental=resume is not None, kept=len(resume.kept) if resume else 0, manifest=manifest)


def export_folder(camp: Any, folder: Path, *, ledger: list[LedgerEntry], full: bool = False,
                  progress: Any = None, processes: int | None = None) -> tuple[int, Result]:
    """The whole campaign's site in ``folder`` (checked by :func:`.outputs.check_folder`) through
    :func:`.outputs.output_folder`, going on from the earlier export the folder holds when its cache
    matches the log (``full``: a whole export all the same); the cache is removed before the first
    page moves and written once the folder is complete. Returns the number of events and what it did."""
    cache = SiteCache.read(folder, full=full)
    done: list[Result] = []
    with output_folder(folder, replacing=lambda: forget(folder),
                       finished=lambda: write(folder, done[0].manifest)) as emit:
        n, result = export_site_cached(camp, emit, cache, ledger=ledger, listed=listed_files(folder),
                                       progress=progress, processes=processes)
        done.append(result)
    return n, result


def _same_character(folder: Path, previous: Manifest, listed: set[str]) -> Callable[[str, str], bool]:
    """Whether the earlier export wrote the character page ``file`` from material of this digest and
    the file is still as it left it (a regular file of the same size and times, in the folder's list)."""
    known = {c.file: c for c in previous.characters}

    def same(file: str, digest: str) -> bool:
        c = known.get(file)
        if c is None or c.digest != digest or file not in listed:
            return False
        return _unchanged(folder / file, c.size, c.mtime_ns, c.ctime_ns)

    return same


def _unchanged(path: Path, size: int, mtime_ns: int, ctime_ns: int) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and (st.st_size, st.st_mtime_ns, st.st_ctime_ns) == (size, mtime_ns, ctime_ns)


def _page_file(camp: Any, page: SessionPage) -> PageFile:
    return PageFile(file=page.file, key=page.key, first=page.first, last=page.last,
                    hash=camp.store.hash_at(page.last) or "", size=0, mtime_ns=0, ctime_ns=0)


def write(folder: Path, manifest: Manifest | None) -> None:
    """Write the cache once the pages are in place: each page's size and times read from the folder,
    the file written beside and renamed over the old one (a reader sees the old or the new one);
    without a manifest (or with a page missing), the old cache is removed."""
    target = folder / CACHE_FILE
    if manifest is not None:
        try:
            manifest = msgspec.structs.replace(manifest, pages=[_stat(folder, p) for p in manifest.pages],
                                               characters=[_stat(folder, c) for c in manifest.characters])
        except OSError:
            manifest = None
    if manifest is None:
        target.unlink(missing_ok=True)
        return
    tmp = folder / f"{CACHE_FILE}.part-{os.urandom(4).hex()}"
    try:
        tmp.write_bytes(_ENCODER.encode(manifest))
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _stat(folder: Path, entry: Any) -> Any:
    """``entry`` (a :class:`PageFile` or :class:`CharacterFile`) with its file's size and times."""
    st = os.lstat(folder / entry.file)
    return msgspec.structs.replace(entry, size=st.st_size, mtime_ns=st.st_mtime_ns, ctime_ns=st.st_ctime_ns)


def forget(folder: Path) -> None:
    """Remove the folder's cache (before the pages move: a cache never describes pages half replaced)."""
    (folder / CACHE_FILE).unlink(missing_ok=True)
