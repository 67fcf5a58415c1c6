"""The shape of a projection: a name, a version, tables, and a pure fold.

* ``initial()`` -> the state before any event;
* ``evolve(state, rec)`` -> the state after one event (pure, never raises for a valid event);
* ``rows(state)`` -> the full content of the projection's *state tables* ({table: [row dicts]});
* ``appended(state, rec)`` -> rows to add to its *append tables* for this event (history-like
  read models such as the timeline or the XP ledger, which only grow).

To change a projection, bump ``version``: the runner sees the stored checkpoint's version differ
and rebuilds it from the log. Read tables are never migrated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from cristal_events import Campaign, RecordedEvent


class Table:
    """A read table: its columns (name -> SQLite type) and primary key."""

    def __init__(self, columns: dict[str, str], pk: str | tuple[str, ...]):
        self.columns = columns
        self.pk = (pk,) if isinstance(pk, str) else tuple(pk)

    def ddl(self, name: str) -> str:
        cols = ", ".join(f'"{c}" {t}' for c, t in self.columns.items())
        pk = ", ".join(f'"{c}"' for c in self.pk)
        return f'CREATE TABLE IF NOT EXISTS "{name}" ({cols}, PRIMARY KEY ({pk}))'


#: The XP ledger contract (docs/architecture.md): every ruleset's ledger projection writes this table,
#: and the generic XP audit reads it.
XP_LEDGER = Table(
    {"position": "INTEGER", "character": "TEXT", "session": "INTEGER", "recorded_at": "TEXT", "actor": "TEXT",
     "kind": "TEXT", "amount": "INTEGER", "what": "TEXT", "reason": "TEXT", "cost_charged": "INTEGER",
     "cost_required": "INTEGER", "balance_after": "INTEGER", "amends": "INTEGER", "flags": "TEXT"},
    pk="position",
)


class Projection:
    """Base class; subclasses set the class attributes and implement evolve (and rows/appended)."""

    name: ClassVar[str]
    version: ClassVar[int] = 1
    #: ruleset names this projection applies to; None = every ruleset
    rulesets: ClassVar[tuple[str, ...] | None] = None
    state_tables: ClassVar[dict[str, Table]] = {}
    append_tables: ClassVar[dict[str, Table]] = {}
    #: msgspec-decodable type of the state (stored with the checkpoint)
    state_type: ClassVar[Any] = type(None)

    def __init__(self, campaign: "Campaign"):
        self.campaign = campaign

    def initial(self) -> Any:
        return None

    def evolve(self, state: Any, rec: "RecordedEvent") -> Any:
        return state

    def rows(self, state: Any) -> dict[str, list[dict[str, Any]]]:
        return {}

    def appended(self, state: Any, rec: "RecordedEvent") -> dict[str, list[dict[str, Any]]]:
        return {}

    @property
    def tables(self) -> dict[str, Table]:
        return {**self.state_tables, **self.append_tables}
