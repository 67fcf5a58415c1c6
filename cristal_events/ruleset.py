"""The contract between the ruleset-agnostic core and a rule system.

A ruleset is plain data plus pure functions: its event classes (one tagged union), its upcasters,
its settings (the choices its book leaves to the game master), the type of its state, and

* ``initial_state(header) -> state``
* ``evolve(state, recorded_event) -> state``: a pure fold, never raises for a valid event, never rolls
  (a :class:`ComposedRuleset` hands each part's evolver the typed event: ``fn(state, event, rec)``);
* ``decide(state, command, ctx) -> list[Emit]``: validates a command against the state and returns
  the events to append, or raises a :class:`~cristal_events.errors.RuleError`;
* ``compensate(state, original, changes, ctx) -> list[Emit]``: the events that correct an earlier one;
* ``summarize(recorded_event) -> str``: one readable line for the log, the replay and the exports;
* ``narrate(before_state, recorded_event, after_state) -> str``: the event told in the book's terms
  with the state change it made (replay); defaults to the summary.

The core never imports a ruleset's modules by name: rulesets are found through
:mod:`cristal_events.rulesets` (a registry by name, extendable with the ``cristal_events.rulesets``
entry-point group).
"""

from abc import ABC, abstractmethod
from typing import Any, ClassVar, NamedTuple, TypeVar, overload

import msgspec

from .dice import Dice
from .errors import RuleError
from .events import CampaignCreated, Event
from .i18n import _
from .log_rows import sha256
from .records import RecordedEvent
from .rounding import RoundingMode, as_mode

#: the campaign settings the core keeps beside the ruleset's (``fudge_policy``: what an override may
#: do; see :data:`cristal_events.service.CORE_SETTINGS`): never handed to a ruleset's settings type
CORE_SETTING_KEYS = frozenset({"fudge_policy", "approval_xp_purchase", "approval_heal", "approval_correction"})


class Emit(NamedTuple):
    """One event a decision wants appended, and the stream it belongs to."""

    stream: str
    event: Event


class Context(msgspec.Struct):
    """What a decision may know besides the state: settings, rounding, actor, session, and dice.

    The engine's dice are the keyed stream ``dice_key``/``dice_salt`` from die counter ``dice_first``
    (docs/verifiable-dice.md); ``dice_scheme`` names the stream (``session``, ``seed`` or ``fresh``).
    ``dice_refusal``, when set, is the sentence that refuses engine dice (a session whose secret
    is missing): entered faces are still accepted.
    """

    header: CampaignCreated
    settings: Any
    rounding: str
    session: int | None
    position: int  # the last position of the log when the command was decided
    actor: str
    dice_key: str = ""
    dice_salt: str = ""
    dice_first: int = 0
    dice_scheme: str = "fresh"
    dice_refusal: str = ""
    faces: list[int] | None = None
    _dice: Dice | None = None

    def dice(self) -> Dice:
        """The command's single source of faces: those entered at the table, else the engine's keyed
        stream. A command's dice are all of one source."""
        if self._dice is None:
            if self.faces is not None:
                self._dice = Dice.entered(self.faces)
            elif self.dice_refusal:
                raise RuleError(self.dice_refusal)
            else:
                self._dice = Dice.keyed(self.dice_key.encode(), self.dice_salt, self.dice_first)
        return self._dice

    @property
    def mode(self) -> RoundingMode:
        """``rounding`` typed as the rules take it (:func:`cristal_events.rounding.as_mode`)."""
        return as_mode(self.rounding)


E = TypeVar("E", bound=Event)
E2 = TypeVar("E2", bound=Event)
E3 = TypeVar("E3", bound=Event)
E4 = TypeVar("E4", bound=Event)


@overload
def event_of(original: RecordedEvent, cls: type[E]) -> E: ...
@overload
def event_of(original: RecordedEvent, cls: tuple[type[E], type[E2], type[E3]]) -> E | E2 | E3: ...
@overload
def event_of(original: RecordedEvent, cls: tuple[type[E], type[E2], type[E3], type[E4]]) -> E | E2 | E3 | E4: ...
def event_of(original: RecordedEvent, cls: Any) -> Any:
    """The event a compensator amends, as the class its table entry was registered for (``cls``, or one
    of them): the compensators are looked up by the event's class, so another class is a wiring error."""
    ev = original.event
    if not isinstance(ev, cls):
        raise TypeError(f"position {original.position} holds a {type(ev).__name__}, not a {cls}")
    return ev


def derive_seed(material: str, position: int) -> int:
    """The RNG seed of a command of the legacy scheme (before the die counter): the command whose
    first event landed at ``position`` rolled ``random.Random(derive_seed(material, position))``.
    Kept so that ``verify --rolls`` still checks logs written before (docs/verifiable-dice.md)."""
    digest = sha256()(f"{material}:{position}".encode()).digest()
    return int.from_bytes(digest[:16], "big")


class Ruleset(ABC):
    """Base class of a rule system. Subclasses fill the class attributes and override the hooks."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    events: ClassVar[tuple[type[Event], ...]] = ()
    upcasters: ClassVar[dict[tuple[str, int], Any]] = {}
    settings_type: ClassVar[type[msgspec.Struct]]
    state_type: ClassVar[Any]
    #: bump when the shape of the state changes: snapshots of another version are ignored
    state_version: ClassVar[str] = "1"
    #: the plug-in declarations (:mod:`cristal_events.rulesets`), as dotted names so that nothing is
    #: imported before it is needed: the modules whose ``PROJECTIONS`` are this ruleset's read models
    #: (the ruleset-agnostic ones, e.g. the timeline, apply to every ruleset), the module of its CLI
    #: commands (``PARTS`` or ``commands()``), the file name of its sample campaign script (in
    #: ``sample_campaigns/``) and the read-model tables the timeline exports include
    read_models: ClassVar[tuple[str, ...]] = ()
    cli_module: ClassVar[str | None] = None
    sample_campaign: ClassVar[str | None] = None
    export_tables: ClassVar[tuple[str, ...]] = ()
    #: its texts' gettext domain, as ``"module:NAME"`` of an :class:`cristal_events.i18n.Domain` (its own
    #: catalogs, shipped beside its code); None: its texts are shown as written (docs/architecture.md,
    #: "Languages")
    text_domain: ClassVar[str | None] = None

    def settings(self, header: CampaignCreated, overrides: dict[str, Any] | None = None) -> Any:
        """The ruleset's settings: its defaults, then the campaign's choices, validated."""
        data = {k: v for k, v in header.settings.items() if k not in CORE_SETTING_KEYS}
        if overrides:
            data.update({k: v for k, v in overrides.items() if k not in CORE_SETTING_KEYS})
        try:
            return msgspec.convert(data, self.settings_type)
        except msgspec.ValidationError as exc:
            raise RuleError(_("Invalid {name} campaign setting: {exc}.").format(name=self.name, exc=exc)) from None

    def default_settings(self) -> dict[str, Any]:
        return msgspec.to_builtins(msgspec.convert({}, self.settings_type))

    @abstractmethod
    def initial_state(self, header: CampaignCreated) -> Any:
        """The state of a campaign with no event but its header."""

    @abstractmethod
    def evolve(self, state: Any, rec: RecordedEvent) -> Any:
        """The state after one more event (pure)."""

    def decide(self, state: Any, command: Any, ctx: Context) -> list[Emit]:
        raise RuleError(_("The {value} rules do not know the command {name}.").format(value=self.title or self.name, name=type(command).__name__))

    def compensate(self, state: Any, original: RecordedEvent, changes: dict[str, Any], ctx: Context) -> list[Emit]:
        raise RuleError(_("Events of type {type} cannot be corrected with the {name} rules.").format(type=original.type, name=self.name))

    def summarize(self, rec: RecordedEvent) -> str:
        return rec.type

    def advise(self, before: Any, after: Any, recs: list[RecordedEvent]) -> list[str]:
        """Warnings about a command just recorded (``before``/``after``: the ruleset states around its
        events): what the rules allow but a game master should not miss, e.g. a session ended with a
        fight still going on. Pure; the service passes each to :meth:`Campaign.warn`. Default: none."""
        return []

    def summarizer(self, cls: type) -> Any:
        """The function ``summarize`` uses for the recorded events of class ``cls`` (found once per
        class by a reader that summarizes many events, such as the timeline)."""
        return self.summarize

    def narrate(self, before: Any, rec: RecordedEvent, after: Any) -> str:
        """The event told in plain language in the book's terms, with the state change it made.

        ``before`` and ``after`` are the ruleset states around the event (``after = evolve(before, rec)``),
        so a ruleset can say "PV 12 → 4" or "IT 0 → 6" and use the characters' display names. Pure, never
        rolls. The default is :meth:`summarize`; replay and the exports call this hook.
        """
        return self.summarize(rec)

    def characters(self, state: Any) -> dict[str, Any]:
        """The characters of a state by id (used by the generic commands: sheet, replay, audit)."""
        return {}

    def sheet(self, state: Any, character_id: str, *, settings: Any, rounding: str) -> dict[str, Any]:
        """The sheet of one character of ``state`` (plain data: ``sheet --json``), with the campaign's
        typed ``settings`` as they stand at that point; an unknown id is a RuleError."""
        raise RuleError(_("The {value} rules keep no character sheets.").format(value=self.title or self.name))

    def render_sheet(self, sheet: dict[str, Any]) -> list[str]:
        """:meth:`sheet` as terminal lines in the book's terms (``sheet``)."""
        return [f"{k}: {v}" for k, v in sheet.items()]

    def party(self, state: Any, *, settings: Any, rounding: str) -> list[dict[str, Any]]:
        """Every character of ``state`` at a glance, one dict each (``characters --json``)."""
        return []

    def party_line(self, row: dict[str, Any]) -> str:
        """One row of :meth:`party` on one line."""
        return "  ".join(f"{v}" for v in row.values())

    def party_cells(self, row: dict[str, Any]) -> list[tuple[str, str]]:
        """One row of :meth:`party` as ``(header, value)`` cells, the character's name first: what
        ``characters`` lays out in 80 columns (:func:`cristal_events.cli.views.party_lines`)."""
        return [(str(k), str(v)) for k, v in row.items()]

    def admit(self, state: Any, rec: RecordedEvent) -> str | None:
        """Why the ruleset event ``rec`` could not have been decided on ``state``, in one sentence, or None.

        ``cristal import`` asks this of every event of a history it did not write, before folding it
        (docs/exports.md): a stream that was never opened, an entity created twice, an amount the
        decision would have refused. The core checks its own events, the envelope and the sessions.
        The default admits every event."""
        return None

    def evolved_events(self) -> frozenset[type] | None:
        """The event classes ``evolve`` may change the state for (it returns any other event's state
        unchanged), so a reader folding many events can skip the others; None: any event."""
        return None

    def evolver(self, cls: type) -> Any:
        """The function ``evolve`` uses for the recorded events of class ``cls`` (found once per class
        by a reader that folds many events): ``fn(state, rec) -> state``."""
        return self.evolve

    def typed_evolver(self, cls: type) -> Any:
        """The same fold given the typed event: ``fn(state, event, rec) -> state`` with ``event =
        rec.event`` (the service's fold calls it; a composed ruleset hands over its part's function,
        with no wrapper around it)."""
        evolve = self.evolve
        return lambda state, event, rec: evolve(state, rec)


def _merge(parts: tuple[Any, ...], table: str) -> dict[type, Any]:
    merged: dict[type, Any] = {}
    for part in parts:
        for key, fn in getattr(part, table, {}).items():
            if key in merged:
                raise TypeError(f"{key.__name__} is claimed by two parts ({table})")
            merged[key] = fn
    return merged


def _event_type(rec: RecordedEvent) -> str:
    return rec.type


def _unchanged(state: Any, rec: RecordedEvent) -> Any:
    return state


def _unchanged_typed(state: Any, event: Event | None, rec: RecordedEvent) -> Any:
    return state


def _recorded(fn: Any) -> Any:
    """A part's evolver ``fn(state, event, rec)`` as the contract's ``fn(state, rec)``."""
    return lambda state, rec: fn(state, rec.event, rec)


class Deferred:
    """A part's handler named by its module and function (``"package.module:function"``), imported the
    first time it is called: a part can list every decision without importing the modules that make them,
    so a one-shot command imports the decisions it runs and no others (``cristal xp award`` imports none
    of the fights'). ``wrap`` (``"module:function"``), when given, is applied once to the function found
    (e.g. the fights' tie-break before a turn command). Calls are passed on unchanged."""

    __slots__ = ("path", "wrap", "_fn")

    def __init__(self, path: str, wrap: str | None = None) -> None:
        self.path = path
        self.wrap = wrap
        self._fn: Any = None

    @staticmethod
    def _find(path: str) -> Any:
        import importlib

        module, _sep, name = path.partition(":")
        return getattr(importlib.import_module(module), name)

    def resolve(self) -> Any:
        """The function itself (wrapped), imported now if it was not yet."""
        if self._fn is None:
            fn = self._find(self.path)
            self._fn = self._find(self.wrap)(fn) if self.wrap else fn
        return self._fn

    def __call__(self, *args: Any, **kw: Any) -> Any:
        return (self._fn or self.resolve())(*args, **kw)

    def __repr__(self) -> str:
        return f"Deferred({self.path!r}{f', wrap={self.wrap!r}' if self.wrap else ''})"


def on_event(fn: Any) -> Any:
    """A summary written over the typed event (``fn(event) -> str``) as a ``SUMMARIES`` entry, which
    is called with the recorded event: ``fn(rec.event)``."""
    return lambda rec: fn(rec.event)


class ComposedRuleset(Ruleset):
    """A ruleset made of part modules, dispatched by dicts of handlers (never an ``if`` ladder).

    Each part module exposes ``EVENTS`` (its event classes), ``DECIDERS`` ({command class: decide}),
    ``EVOLVERS`` ({event class: evolve(state, event, rec)}: the typed event, and its envelope ``rec`` for
    the few folds that need its position, session or actor), ``SUMMARIES`` ({event class: summarize(rec)}),
    ``COMPENSATORS`` ({event class: compensate}) and optionally ``UPCASTERS``. A subclass sets
    ``parts``; the tables are merged once, when the class is created. A handler may be a
    :class:`Deferred` (its module and function by name, imported when first called): a part lists its
    decisions without importing them, so a command imports only the decision it runs.
    """

    parts: ClassVar[tuple[Any, ...]] = ()
    _deciders: ClassVar[dict[type, Any]] = {}
    _evolvers: ClassVar[dict[type, Any]] = {}
    _summaries: ClassVar[dict[type, Any]] = {}
    _compensators: ClassVar[dict[type, Any]] = {}

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        parts = cls.__dict__.get("parts")
        if not parts:
            return
        cls.events = tuple(ev for part in parts for ev in part.EVENTS)
        cls.upcasters = {k: v for part in parts for k, v in getattr(part, "UPCASTERS", {}).items()}
        cls._deciders = _merge(parts, "DECIDERS")
        cls._evolvers = _merge(parts, "EVOLVERS")
        cls._summaries = _merge(parts, "SUMMARIES")
        cls._compensators = _merge(parts, "COMPENSATORS")

    def evolve(self, state: Any, rec: RecordedEvent) -> Any:
        fn = self._evolvers.get(type(rec.event))
        return fn(state, rec.event, rec) if fn is not None else state

    def decide(self, state: Any, command: Any, ctx: Context) -> list[Emit]:
        fn = self._deciders.get(type(command))
        if fn is None:
            raise RuleError(_("The {title} rules do not know the command {name}.").format(title=self.title, name=type(command).__name__))
        return fn(state, command, ctx)

    def compensate(self, state: Any, original: RecordedEvent, changes: dict[str, Any], ctx: Context) -> list[Emit]:
        fn = self._compensators.get(type(original.event))
        if fn is None:
            raise RuleError(_("Events of type {type} cannot be corrected; record a note instead.").format(type=original.type))
        return fn(state, original, changes, ctx)

    def summarize(self, rec: RecordedEvent) -> str:
        fn = self._summaries.get(type(rec.event))
        return fn(rec) if fn is not None else rec.type

    def summarizer(self, cls: type) -> Any:
        if type(self).summarize is not ComposedRuleset.summarize:  # a subclass summarizes its own way
            return self.summarize
        return self._summaries.get(cls) or _event_type

    def characters(self, state: Any) -> dict[str, Any]:
        return dict(state.characters)

    def evolved_events(self) -> frozenset[type] | None:
        if type(self).evolve is not ComposedRuleset.evolve:  # a subclass folds its own way
            return None
        return frozenset(self._evolvers)

    def evolver(self, cls: type) -> Any:
        if type(self).evolve is not ComposedRuleset.evolve:
            return self.evolve
        fn = self._evolvers.get(cls)
        return _recorded(fn) if fn is not None else _unchanged

    def typed_evolver(self, cls: type) -> Any:
        if type(self).evolve is not ComposedRuleset.evolve:
            return super().typed_evolver(cls)
        return self._evolvers.get(cls) or _unchanged_typed


def admit_stream(rec: RecordedEvent, *, exists: bool, opens: tuple[type[msgspec.Struct], ...], closes: tuple[type, ...] = (),
                 what: str) -> str | None:
    """The import check of one event on a stream that names one thing (a character, a combat): an
    opening event (``opens``) needs the thing not to exist yet, any other event needs it to exist;
    ``what`` names the thing in the sentence (``"character"``)."""
    opening = isinstance(rec.event, opens)
    if opening and exists:
        return _("it opens the {what} stream {stream} a second time").format(what=what, stream=rec.stream)
    if not opening and not exists:
        tags = " or ".join(sorted(str(cls.__struct_config__.tag) for cls in opens))
        closed = _(" (or it was closed)") if closes else ""
        return _("the {what} stream {stream} was never opened{closed}: it must start with {tags}").format(what=what, stream=rec.stream, closed=closed, tags=tags)
    return None
