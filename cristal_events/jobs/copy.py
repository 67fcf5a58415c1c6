"""``cristal copy SRC DST``: a campaign moved between backends (issue 20, item 4), SQLite file to
PostgreSQL campaign or back, or between two of either.

The source must verify first (its chain, triggers and migrations). Its rows are appended in order to
a new, empty destination through the store's import (:meth:`Store.import_rows` / PgStore's COPY),
which chains and hashes them again: the positions start at 1 in both, so the destination holds the
same hashes at the same positions, and every receipt and session commitment (they are events) stays
valid. The destination's head must equal the source's, else it is removed and the copy refused. The
open session's dice secret, when one is open, is written to the destination's secrets file, and the
rolls still sealed to its sealed file (each backend's place: beside an SQLite file, beside the secret
of a PostgreSQL campaign), so the copy reveals them and ``verify --rolls`` checks them as the source
would; the read models are built there. Web access tokens are not copied: they open one server's table, and
the new one grants its own (the log keeps every grant and revoke either way).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import msgspec

from ..errors import CristalError
from ..i18n import _
from ..service import Campaign
from ..store import IMPORT_FIELDS, create_store, is_postgres


class Copied(msgspec.Struct, kw_only=True):
    """What a copy did: the events moved, the destination's head (== the source's) and its receipt."""

    source: str
    destination: str
    events: int
    receipt: str
    secret_copied: bool = False
    sealed_copied: int = 0  # the sealed rolls whose nonce and events went along


def copy_campaign(source: str, destination: str, *, progress: Any = None) -> Copied:
    """Copy the campaign ``source`` to the new campaign ``destination`` (see the module's docstring)."""
    src = Campaign.open(source, readonly=True)
    try:
        report = src.store.verify()
        if not report.ok:
            raise CristalError(_("{source} does not verify ({problem}); nothing was copied: run "
                                 "'cristal verify' on it first.").format(source=source, problem=report.problems[0]))
        head = src.store.head()
        store = create_store(destination, src.store.codec)
        try:
            rows = (tuple(getattr(r, f) for f in IMPORT_FIELDS) for r in src.store.read_all(decode=False))
            n = store.import_rows(rows)
            if store.head() != head:
                raise CristalError(_("The copy in {destination} does not end on the source's hash at position "
                                     "{position}; it was removed.").format(destination=destination, position=head[0]))
        except BaseException:
            _remove(store, destination)
            raise
        store.close()
        open_session = src.state().core.session
        secret = src.session_secret(open_session) if open_session is not None else None
        still = set(src.sealed_rolls())
        sealed = {p: kept for p, kept in src._read_sealed().items() if p in still}
    finally:
        src.close()
    dst = Campaign.open(destination)
    try:
        if secret is not None and open_session is not None:
            dst._write_secrets({open_session: secret})
        if sealed:
            dst._write_sealed(sealed)
        from cristal_events.projections import runner

        from .. import projections

        projections.attach(dst)
        runner.catch_up(dst, progress=progress)
    finally:
        dst.close()
    return Copied(source=source, destination=destination, events=n, receipt=f"{head[0]}:{head[1]}",
                  secret_copied=secret is not None, sealed_copied=len(sealed))


def _remove(store: Any, destination: str) -> None:
    """Remove a destination this copy created and could not finish."""
    if is_postgres(destination):
        store.drop_campaign()
        store.close()
        return
    store.close()
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.unlink(Path(destination + suffix))
        except FileNotFoundError:
            pass
