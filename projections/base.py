"""The shape of a projection: a name, a version, tables, and a pure fold.

* ``initial()`` -> the state before any event;
* ``evolve(state, rec)`` -> the state after one event (pure, never raises for a valid event);
* ``rows(state)`` -> the full content of the projection's *state tables* ({table: [rows]});
* ``appended(state, rec)`` -> rows to add to its *append tables* for this event (history-like
  read models such as the timeline or the XP ledger, which only grow).

A row is a dict keyed by column, or a tuple of the table's columns in order (cheaper to build for
the tables that get a row per event). ``handles`` names the event classes a projection reacts to:
for any other event ``evolve`` returns the state it was given and ``appended`` adds nothing, so the
runner does not call them (None: every event).

To change a projection, bump ``version``: the runner sees the stored checkpoint's version differ
and rebuilds it from the log. Read tables are never migrated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from cristal_events.events import SettingChanged
from cristal_events.xp_ledger import LedgerEntry, to_row

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
    #: the event classes ``evolve``/``appended`` react to; None = every event (see the module docstring)
    handles: frozenset[type] | None = None  # a class attribute, or set per instance (a ruleset's fold)
    #: for a projection that takes every event (``handles`` None): the attributes of ``rec.event`` its
    #: ``evolve`` and ``appended`` read (with ``getattr`` and a default), or None (the whole event). An
    #: event of a class with none of them may then reach it undecoded (``rec.event`` None, which gives
    #: the same defaults): a stretch of the log folded only by read models that say what they read is
    #: read without decoding the other payloads (``runner._fold``: the second process of a rebuild)
    payload_fields: ClassVar[tuple[str, ...] | None] = None
    #: True when the state is a function of the campaign's world at the checkpoint's position, as for
    #: the read models that fold the ruleset's whole state. Such a projection also defines
    #: ``state_of(world) -> state`` (what ``evolve`` reaches from ``initial()`` over the events folded
    #: into ``world``): the checkpoint then stores no copy of the state, and a catch-up starts from the
    #: campaign's own state (in memory after a command, else rebuilt from its snapshots)
    world_state: ClassVar[bool] = False
    #: True when the state is what its state tables hold: ``state_from_rows(rows)`` gives it back from
    #: ``{table: [row tuples in the columns' order]}``. The checkpoint then stores no copy of the state
    #: (only its position: a command does not rewrite a whole state, e.g. every session of a long
    #: campaign), except after a catch-up that could not write or fold everything, whose state is
    #: stored as before (``state_type``)
    rows_state: ClassVar[bool] = False
    #: ``{append table: the log's envelope columns its rows are, in the table's column order}`` for a
    #: read model whose every row is one event's envelope and nothing else (the timeline): the runner
    #: has the store copy them from the log (``Store.copy_log_rows``: one INSERT ... SELECT) instead
    #: of folding it in Python. ``appended`` still gives the same rows (what ``verify`` and a read of
    #: a read model behind the log compute), and its state stays ``initial()``
    log_columns: ClassVar[dict[str, tuple[str, ...]]] = {}

    def __init__(self, campaign: Campaign):
        self.campaign = campaign

    def initial(self) -> Any:
        return None

    def state_of(self, world: Any) -> Any:
        """A ``world_state`` projection's state at the campaign's ``world`` (see ``world_state``)."""
        raise TypeError(f"the read model {self.name} folds a state of its own (world_state is False)")

    def state_from_rows(self, rows: dict[str, list[tuple[Any, ...]]]) -> Any:
        """A ``rows_state`` projection's state from its state tables' rows (see ``rows_state``)."""
        raise TypeError(f"the read model {self.name} keeps its state in its checkpoint (rows_state is False)")

    def evolve(self, state: Any, rec: RecordedEvent) -> Any:
        return state

    def rows(self, state: Any) -> dict[str, list[Any]]:  # rows as dicts, or tuples in the columns' order
        return {}

    def appended(self, state: Any, rec: RecordedEvent) -> dict[str, list[Any]]:
        return {}

    def changed_rows(self, before: Any, after: Any) -> dict[str, tuple[list[Any], list[tuple[Any, ...]]]] | None:
        """What a catch-up from ``before`` to ``after`` changes in the state tables:
        ``{table: (rows to write, primary keys of rows to delete)}``, or None (the default) when the
        projection cannot tell, and the runner rewrites its state tables from ``rows(after)``.
        Whatever it returns, the tables must end as ``rows(after)`` would leave them."""
        return None

    @property
    def tables(self) -> dict[str, Table]:
        return {**self.state_tables, **self.append_tables}


class LedgerProjection(Projection):
    """Base of a ruleset's XP ledger: appends to ``xp_ledger`` the entry its fold left in ``state.last``
    (a :class:`~cristal_events.xp_ledger.LedgerEntry`, posted with its balance and flags)."""

    append_tables = {"xp_ledger": XP_LEDGER}

    def appended(self, state: Any, rec: RecordedEvent) -> dict[str, list[dict[str, Any]]]:
        last = state.last
        if last is None or last.position != rec.position:
            return {}
        return {"xp_ledger": [to_row(last)]}


def ledger_entry(rec: RecordedEvent, character: str, *, kind: str, amount: int, what: str, reason: str = "",
                 charged: int | None = None, required: int | None = None,
                 amends: int | None = None) -> LedgerEntry:
    """The entry of ``rec`` moving ``amount`` XP of ``character``, not yet posted (no balance, no flags:
    :func:`~cristal_events.xp_ledger.posted` decides them)."""
    return LedgerEntry(position=rec.position, character=character, session=rec.session,
                       recorded_at=rec.recorded_at, actor=rec.actor, kind=kind, amount=amount, what=what,
                       reason=reason, cost_charged=charged, cost_required=required, amends=amends)


class _SharedFold:
    """The ruleset's fold, computed once per event for every projection holding the same state object.

    Several read models (sheets, combats) fold the ruleset's whole state. When they start from the
    same initial object (a rebuild), each event is folded once and the result handed to all of them;
    a projection whose state came from its own checkpoint simply folds on its own. Pure either way.
    """

    def __init__(self, campaign: Campaign):
        self.ruleset = campaign.ruleset
        self.initial = campaign.ruleset.initial_state(campaign.header)
        #: the event classes that can change the state (None: any); a projection folding this state
        #: handles (at least) these
        self.handles = campaign.ruleset.evolved_events()
        self._evolvers: dict[type, Any] = {}
        self._before: Any = None
        self._position = -1
        self._after: Any = None

    def __call__(self, state: Any, rec: RecordedEvent) -> Any:
        if rec.position == self._position and state is self._before:
            return self._after
        evolve = self._evolvers.get(type(rec.event))
        if evolve is None:
            evolve = self._evolvers[type(rec.event)] = self.ruleset.typed_evolver(type(rec.event))
        after = evolve(state, rec.event, rec)
        self._before, self._position, self._after = state, rec.position, after
        return after


class SheetsProjection(Projection):
    """Base of a ruleset's character sheets: its state (``state_type``, a Struct of ``rules`` and
    ``settings``) is the ruleset's own fold plus the campaign settings changed in the log, which is
    the campaign's world at any position (``world_state``). A subclass sets the class attributes
    and writes ``rows``."""

    world_state = True

    def __init__(self, campaign: Campaign):
        super().__init__(campaign)
        self._fold = rules_fold(campaign)
        self.handles = None if self._fold.handles is None else self._fold.handles | {SettingChanged}

    def initial(self) -> Any:
        return self.state_type(rules=self._fold.initial, settings=dict(self.campaign.header.settings))

    def state_of(self, world: Any) -> Any:
        return self.state_type(rules=world.rules, settings=world.core.settings)

    def evolve(self, state: Any, rec: RecordedEvent) -> Any:
        ev = rec.event
        if type(ev) is SettingChanged:
            return self.state_type(rules=state.rules, settings={**state.settings, ev.key: ev.value})
        rules = self._fold(state.rules, rec)
        return state if rules is state.rules else self.state_type(rules=rules, settings=state.settings)


def rules_fold(campaign: Campaign) -> _SharedFold:
    """The shared fold of ``campaign``'s ruleset state (one per open campaign)."""
    fold = getattr(campaign, "_projections_rules_fold", None)
    if fold is None:
        fold = _SharedFold(campaign)
        campaign._projections_rules_fold = fold  # type: ignore[attr-defined]
    return fold
