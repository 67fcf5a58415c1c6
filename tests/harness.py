"""The rules harness: a ruleset's ``decide`` and ``evolve`` called directly, with no campaign file.

A rule scenario says what happened, what the table asks, and what the rules answer::

    given(C.CharacterCreated(...), stream="character:thor").when(C.AwardXp(...)).then(C.XpAwarded(...))
    given(C.CreateCharacter(id="thor", race="Humain")).when(C.SpendXp(...), faces=[3]).refused("...")

``given`` takes events (folded as they are, on ``stream``), commands (decided first, so a scenario can
be set up the way a table plays it) or :class:`~cristal_events.ruleset.Emit` pairs. ``when`` decides one
command with a :class:`~cristal_events.ruleset.Context` built here, not by a campaign: the campaign's
header and settings, its rounding, and its dice, the entered ``faces`` or the engine's keyed stream of
the public ``seed`` (the same counter a campaign opened with ``--seed`` keeps, so an engine roll here is
the roll the campaign makes). ``then`` compares the ruleset's events only: the core's ``dice.rolled``
record the service appends after a decision is not the rules' answer (tests/service/ checks it).

:class:`Table` is the same machinery as an object a test keeps between commands (``execute``, ``state``,
``last_position``), for the longer scenarios (a whole duel, a day of faith) that read the state between
steps. It answers like :meth:`Campaign.execute <cristal_events.service.Campaign.execute>` (the records
of the events, the dice record last) so a scenario moved here keeps its numbers; what it does not do is
write: no SQLite, no hash chain, no read models, no snapshots, no bounds check of the numbers (those
have their own layers' tests: tests/store/, tests/projections/, tests/reliability/).
"""

from __future__ import annotations

from typing import Any

import msgspec
from helpers import refused

from cristal_events import RecordedEvent, rulesets
from cristal_events.errors import CristalError, RuleError
from cristal_events.events import CampaignCreated, DiceRecorded, Event, SettingChanged, tag_of
from cristal_events.ruleset import Context, Emit
from cristal_events.service import CAMPAIGN_STREAM, ChangeSetting, CoreState, World, core_evolve, dice_record


class Table:
    """A campaign's state in memory, moved on by ``decide`` and ``evolve`` alone."""

    def __init__(self, ruleset: str = "cristal", *, rounding: str = "round", seed: int | None = None,
                 settings: dict[str, Any] | None = None, name: str = "Table", actor: str = "GM"):
        self.ruleset = rs = rulesets.get(ruleset)
        header = CampaignCreated(campaign_id="harness", name=name, ruleset=ruleset, rounding=rounding, seed=seed)
        merged = {**rs.default_settings(), **(settings or {})}  # validated as Campaign.create does
        header = msgspec.structs.replace(header, settings=msgspec.to_builtins(
            rs.settings(msgspec.structs.replace(header, settings=merged))))
        self.header = header
        self.actor = actor
        self.log: list[RecordedEvent] = []
        self.world = World(CoreState(header=header, settings=dict(header.settings)), rs.initial_state(header))
        self._versions: dict[str, int] = {}
        self._fold([Emit(CAMPAIGN_STREAM, header)])

    # ------------------------------------------------------------------ state
    @property
    def rules(self) -> Any:
        return self.world.rules

    def state(self) -> World:
        return self.world

    def last_position(self) -> int:
        return len(self.log)

    def stream(self, name: str) -> list[RecordedEvent]:
        """The records of one stream, in order (as :meth:`Store.read_stream` reads them)."""
        return [r for r in self.log if r.stream == name]

    def context(self, faces: list[int] | None = None) -> Context:
        """The context a decision gets: the campaign's settings and rounding, and its dice."""
        core = self.world.core
        header = msgspec.structs.replace(self.header, settings=core.settings)
        dice: dict[str, Any] = {"dice_scheme": "fresh", "dice_key": "harness"}
        if self.header.seed is not None:  # the key and counter of a campaign with a public seed
            dice = {"dice_scheme": "seed", "dice_key": f"campaign-seed:{self.header.seed}",
                    "dice_first": core.seed_counter}
        return Context(header=header, settings=self.ruleset.settings(header), rounding=self.header.rounding,
                       session=core.session, position=core.position, actor=self.actor, faces=faces, **dice)

    # --------------------------------------------------------------- commands
    def decide(self, command: Any, faces: list[int] | None = None) -> tuple[list[Emit], Context]:
        """The events the rules answer ``command`` with (raises their refusal); nothing is folded."""
        ctx = self.context(None if faces is None else list(faces))
        if isinstance(command, ChangeSetting):  # the one core command a rule scenario needs: a house rule
            self.ruleset.settings(ctx.header, {command.key: command.value})
            emits = [Emit(CAMPAIGN_STREAM, SettingChanged(key=command.key, value=command.value,
                                                          reason=command.reason))]
        else:
            emits = list(self.ruleset.decide(self.world.rules, command, ctx))
        if ctx._dice is not None:
            ctx._dice.finish()  # every entered face used, as the service checks after decide
        elif faces:
            raise RuleError("Dice faces were entered but this command rolls no dice.")
        return emits, ctx

    def execute(self, command: Any, *, faces: list[int] | None = None) -> list[RecordedEvent]:
        """Decide ``command`` and fold its events, with the dice record the service would append."""
        return self.commit(*self.decide(command, faces))

    def commit(self, emits: list[Emit], ctx: Context) -> list[RecordedEvent]:
        """Fold a decision's events, then its dice record when a die was taken (as the service does:
        the record advances the seed's die counter, so the next engine roll is the campaign's)."""
        if ctx._dice is not None and ctx._dice.used:
            emits = [*emits, Emit(CAMPAIGN_STREAM, dice_record(ctx))]
        return self._fold(emits)

    def apply(self, *events: Event | Emit, stream: str = CAMPAIGN_STREAM) -> list[RecordedEvent]:
        """Fold events as if they had been decided (a history given, not asked for)."""
        return self._fold([e if isinstance(e, Emit) else Emit(stream, e) for e in events])

    def _fold(self, emits: list[Emit]) -> list[RecordedEvent]:
        recs = []
        for emit in emits:
            version = self._versions[emit.stream] = self._versions.get(emit.stream, 0) + 1
            rec = RecordedEvent(position=len(self.log) + 1, event_id=f"e{len(self.log) + 1}", stream=emit.stream,
                                version=version, type=tag_of(type(emit.event)),
                                schema_version=1, payload="", recorded_at="", session=self.world.core.session,
                                actor=self.actor, causation_id=None, correlation_id=None, prev_hash="", hash="",
                                event=emit.event)
            evolve = self.ruleset.evolver(type(emit.event))
            self.world = World(core_evolve(self.world.core, rec), evolve(self.world.rules, rec))
            self.log.append(rec)
            recs.append(rec)
        return recs


class Outcome:
    """What the rules answered to one command: its events (``then``) or its refusal (``refused``)."""

    def __init__(self, table: Table, command: Any, faces: list[int] | None):
        self.table, self.command, self.faces = table, command, faces

    def then(self, *expected: Event | Emit) -> Table:
        """The rules answer exactly ``expected`` (events, or Emit pairs to check the stream too), in
        order; the table is returned with them folded, for assertions on the state."""
        emits, ctx = self.table.decide(self.command, self.faces)
        got = [e if isinstance(x, Emit) else e.event for e, x in zip(emits, expected)]
        assert len(emits) == len(expected), f"{len(emits)} events: {[e.event for e in emits]}"
        assert got == list(expected)
        self.table.commit(emits, ctx)
        return self.table

    def events(self) -> list[Event]:
        """The events the rules answer, folded (for a test that checks some of their fields)."""
        return [r.event for r in self.table.execute(self.command, faces=self.faces)
                if not isinstance(r.event, DiceRecorded)]

    def refused(self, message: str, exc: type[CristalError] = RuleError) -> Table:
        """The rules refuse in exactly the one sentence ``message``, and the state is unchanged."""
        refused(self.table, self.command, message, exc=exc, faces=self.faces)
        return self.table


class Given:
    """A table after its history, waiting for the command of the scenario."""

    def __init__(self, table: Table):
        self.table = table

    def when(self, command: Any, faces: list[int] | None = None) -> Outcome:
        return Outcome(self.table, command, None if faces is None else list(faces))


def given(*history: Any, stream: str = CAMPAIGN_STREAM, ruleset: str = "cristal", table: Table | None = None,
          **campaign: Any) -> Given:
    """A campaign of ``ruleset`` (``rounding``, ``seed``, ``settings`` as ``cristal init`` takes them)
    after ``history``: events folded on ``stream``, Emit pairs on theirs, commands decided, and
    ``(command, faces)`` pairs decided with the faces rolled at the table."""
    t = table if table is not None else Table(ruleset, **campaign)
    for item in history:
        if isinstance(item, Emit):
            t.apply(item)
        elif isinstance(item, Event):
            t.apply(item, stream=stream)
        elif isinstance(item, tuple):  # (command, faces): a command of the history that rolled at the table
            t.execute(item[0], faces=list(item[1]))
        else:
            t.execute(item)
    return Given(t)
