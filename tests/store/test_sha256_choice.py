"""The SHA-256 of the chain comes from one place, ``log_rows.sha256``: the interpreter's own module for a
few hashes in a process that has not loaded OpenSSL's (a one-shot command: loading ``_hashlib`` costs more
than the hashes it would save), OpenSSL's for a bulk path or once it is loaded. Both give the same digests."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from cristal_events import log_rows

ROOT = Path(__file__).resolve().parents[2]


@given(st.binary(max_size=3000))
def test_the_builtin_and_openssl_digests_are_the_same(data):
    builtin = log_rows._builtin or __import__("_sha2" if sys.version_info >= (3, 12) else "_sha256").sha256
    assert builtin(data).hexdigest() == hashlib.sha256(data).hexdigest()


def test_a_process_without_hashlib_hashes_a_few_rows_with_the_builtin_and_a_bulk_with_openssl():
    code = ("import sys\nfrom cristal_events import log_rows\n"
            "few = log_rows.sha256(3)\n"
            "print(few.__module__ if hasattr(few, '__module__') else type(few(b'')).__module__, 'hashlib' in sys.modules)\n"
            "bulk = log_rows.sha256(log_rows.BULK_HASHES)\n"
            "big = log_rows.sha256(size=log_rows.BULK_BYTES)\n"
            "print(bulk is big, 'hashlib' in sys.modules, log_rows.sha256() is bulk)\n"
            "import hashlib\nprint(bulk is hashlib.sha256, few(b'chain').hexdigest() == bulk(b'chain').hexdigest())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout.split("\n")
    first = out[0].split()
    assert first[0] in ("_sha2", "_sha256") and first[1] == "False"  # a few hashes: no OpenSSL loaded
    assert out[1] == "True True True"  # a bulk (by count or by size) loads OpenSSL's, then every choice is it
    assert out[2] == "True True"


def test_a_row_hashes_the_same_whichever_constructor_hashed_it():
    args = (log_rows.GENESIS, 1, "0190-id", "campaign", 1, "campaign.created", 1, '{"name":"T"}',
            "2026-01-01T00:00:00.000000+00:00", None, "GM", None, None)
    canonical = log_rows.hash_encoder.encode(list(args))
    assert log_rows.row_hash(*args) == hashlib.sha256(canonical).hexdigest()
