"""The jobs users come for, over an open campaign: replay, the XP audit, timeline exports and
imports, and campaign scripts (the sample campaigns and ``cristal demo``).

Each job reads the log through :func:`walk.walk` (folding states with ``Campaign.fold``), never rolls
and never writes, except :func:`exports.import_jsonl` and :func:`script.run`, which build a new file.
"""

from .audit import AuditReport, audit_rows, find_ledger, ledger_rows
from .exports import FORMATS, import_jsonl, write_csv, write_jsonl, write_markdown
from .page import write_html
from .script import Script, ScriptError, load, parse
from .script import run as run_script
from .walk import Step, resolve_range, walk

__all__ = [
    "AuditReport", "FORMATS", "Script", "ScriptError", "Step", "audit_rows", "find_ledger", "import_jsonl",
    "ledger_rows", "load", "parse", "resolve_range", "run_script", "walk", "write_csv", "write_html",
    "write_jsonl", "write_markdown",
]
