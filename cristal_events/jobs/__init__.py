"""The jobs users come for, over an open campaign: replay, the XP audit, timeline exports and
imports. Campaign scripts (the sample campaigns and ``cristal demo``) drive the CLI, so they live
above it, in :mod:`cristal_events.cli.script`.

Each job reads the log through :func:`walk.walk` (folding states with ``Campaign.fold``), never rolls
and never writes, except :func:`exports.import_jsonl`, which builds a new file.
"""

from ..errors import ScriptError  # what cli.script raises, kept importable here
from .audit import AuditReport, audit_rows, find_ledger, ledger_rows
from .exports import FORMATS, import_jsonl, write_csv, write_jsonl, write_markdown
from .page import write_html
from .walk import Step, resolve_range, walk

__all__ = [
    "AuditReport", "FORMATS", "ScriptError", "Step", "audit_rows", "find_ledger", "import_jsonl",
    "ledger_rows", "resolve_range", "walk", "write_csv", "write_html",
    "write_jsonl", "write_markdown",
]
