"""A tiny ruleset for the reliability tests: XP awards and spends, dice rolls, two-stream commands.

It exercises the engine (store, service, projections, fairness) without depending on the rules
of either book, so that a crash or a race found here is the engine's. ``register()`` adds it to
the ruleset registry under the name ``ledger`` (in this process only), through the public plug-in
surface (:func:`cristal_events.rulesets.register`) alone: its class declares its own read model
(``ledger_balances``, :class:`LedgerBalances` below) and its own CLI module (this module's
:func:`commands`: ``cristal balance``), and no core file names it.
"""

from __future__ import annotations

from typing import Any

import msgspec
from cristal_events.projections.base import Projection, Table

from cristal_events import rulesets
from cristal_events.errors import RuleError
from cristal_events.events import CampaignCreated, Event
from cristal_events.rolls import Roll
from cristal_events.ruleset import Context, Emit, Ruleset


class XpAwarded(Event, tag="ledger.xp_awarded"):
    character: str
    amount: int
    reason: str = ""
    part: int = 1
    of: int = 1


class XpSpent(Event, tag="ledger.xp_spent"):
    character: str
    amount: int
    what: str = ""
    balance_after: int = 0
    part: int = 1
    of: int = 1


class SpendingLogged(Event, tag="ledger.spending_logged"):
    """The second half of every spend, in another stream: readers must never see one without the other."""

    character: str
    amount: int
    part: int = 2
    of: int = 2


class DiceRolled(Event, tag="ledger.dice_rolled"):
    character: str
    rolls: list[Roll]


class AwardXp(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    amount: int
    reason: str = ""


class SpendXp(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    amount: int
    what: str = ""


class RollDice(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    exprs: list[str]


class LedgerSettings(msgspec.Struct, frozen=True, kw_only=True):
    pass


class LedgerState(msgspec.Struct, kw_only=True):
    xp: dict[str, int] = {}


def _award(state: LedgerState, cmd: AwardXp, ctx: Context) -> list[Emit]:
    if cmd.amount <= 0:
        raise RuleError(f"An XP award must be positive, not {cmd.amount}.")
    return [Emit(f"character:{cmd.character}", XpAwarded(character=cmd.character, amount=cmd.amount,
                                                         reason=cmd.reason))]


def _spend(state: LedgerState, cmd: SpendXp, ctx: Context) -> list[Emit]:
    have = state.xp.get(cmd.character, 0)
    if cmd.amount <= 0:
        raise RuleError(f"An XP spend must be positive, not {cmd.amount}.")
    if cmd.amount > have:
        raise RuleError(f"{cmd.character} has {have} XP and cannot spend {cmd.amount}.")
    return [
        Emit(f"character:{cmd.character}", XpSpent(character=cmd.character, amount=cmd.amount, what=cmd.what,
                                                   balance_after=have - cmd.amount, part=1, of=2)),
        Emit("ledger", SpendingLogged(character=cmd.character, amount=cmd.amount)),
    ]


def _roll(state: LedgerState, cmd: RollDice, ctx: Context) -> list[Emit]:
    dice = ctx.dice()
    rolls = [dice.roll(e, rounding=ctx.mode, purpose="test") for e in cmd.exprs]
    return [Emit(f"character:{cmd.character}", DiceRolled(character=cmd.character, rolls=rolls))]


DECIDERS: dict[type, Any] = {AwardXp: _award, SpendXp: _spend, RollDice: _roll}


class LedgerRuleset(Ruleset):
    name = "ledger"
    title = "Reliability test ledger"
    events = (XpAwarded, XpSpent, SpendingLogged, DiceRolled)
    settings_type = LedgerSettings
    state_type = LedgerState
    read_models = (__name__,)
    cli_module = __name__

    def initial_state(self, header: CampaignCreated) -> LedgerState:
        return LedgerState()

    def evolve(self, state: LedgerState, rec: Any) -> LedgerState:
        ev = rec.event
        match ev:
            case XpAwarded():
                return LedgerState(xp={**state.xp, ev.character: state.xp.get(ev.character, 0) + ev.amount})
            case XpSpent():
                return LedgerState(xp={**state.xp, ev.character: state.xp.get(ev.character, 0) - ev.amount})
        return state

    def decide(self, state: LedgerState, command: Any, ctx: Context) -> list[Emit]:
        fn = DECIDERS.get(type(command))
        if fn is None:
            raise RuleError(f"The ledger does not know the command {type(command).__name__}.")
        return fn(state, command, ctx)

    def summarize(self, rec: Any) -> str:
        ev = rec.event
        match ev:
            case XpAwarded():
                return f"{ev.character} reçoit {ev.amount} XP : {ev.reason}"
            case XpSpent():
                return f"{ev.character} dépense {ev.amount} XP : {ev.what}"
        return rec.type


RULESET = LedgerRuleset()


class BalancesState(msgspec.Struct, frozen=True, kw_only=True):
    xp: dict[str, int] = {}


class LedgerBalances(Projection):
    """The read model of the ledger rules: each character's XP balance."""

    name = "ledger_balances"
    version = 1
    rulesets = ("ledger",)
    state_type = BalancesState
    state_tables = {"ledger_balances": Table({"character": "TEXT", "xp": "INTEGER"}, pk="character")}
    handles = frozenset({XpAwarded, XpSpent})

    def initial(self) -> BalancesState:
        return BalancesState()

    def evolve(self, state: BalancesState, rec: Any) -> BalancesState:
        ev = rec.event
        sign = 1 if isinstance(ev, XpAwarded) else -1
        return BalancesState(xp={**state.xp, ev.character: state.xp.get(ev.character, 0) + sign * ev.amount})

    def rows(self, state: BalancesState) -> dict[str, list[dict[str, Any]]]:
        return {"ledger_balances": [{"character": c, "xp": n} for c, n in sorted(state.xp.items())]}


PROJECTIONS = [LedgerBalances]


def commands() -> list[Any]:
    """The CLI commands of the ledger rules: ``cristal balance [CHARACTER]``."""
    import click

    from cristal_events.cli.common import catch_up, echo, emit_json, json_option, open_campaign

    @click.command("balance")
    @click.argument("character", required=False)
    @json_option
    @click.pass_context
    def balance_cmd(ctx: click.Context, character: str | None, as_json: bool) -> None:
        """Each character's XP balance, from the ledger_balances read model.

        Example: cristal balance thor
        """
        camp = open_campaign(ctx, write=True)
        catch_up(camp)
        rows = camp.store.read_model_rows("ledger_balances", where={"character": character} if character else None,
                                          order_by=("character",))
        if as_json:
            emit_json(rows)
            return
        for r in rows:
            echo(f"{r['character']:<12} {r['xp']:>6} XP")

    return [balance_cmd]


def register() -> None:
    """Make ``ledger`` a known ruleset in this process (idempotent), through the public surface."""
    rulesets.register("ledger", __name__)


def unregister() -> None:
    """Forget ``ledger`` again (idempotent)."""
    rulesets.unregister("ledger")
