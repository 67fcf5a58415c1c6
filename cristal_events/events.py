"""Event types: frozen, keyword-only msgspec Structs with explicit, stable tags.

Every event class sets ``tag="..."`` explicitly (never the class name) and a ``version`` class
variable: the schema version of its payload. A ruleset declares its own event classes in its own
module and registers them; this module holds only the ruleset-agnostic core events.
"""

from typing import Any, ClassVar

import msgspec

from .bounds import SEED_MAX, SEED_MIN


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every event. Subclasses must pass ``tag="noun.verbed"`` explicitly."""

    version: ClassVar[int] = 1


class CampaignCreated(Event, tag="campaign.created"):
    """The first event of every campaign: its ruleset, name and settings, fixed for its life."""

    campaign_id: str
    name: str
    ruleset: str
    rounding: str = "round"
    seed: int | None = None
    settings: dict[str, Any] = {}
    engine_version: str = ""

    #: any 64-bit seed, signed or not (what msgspec decodes), not the bounds of the game's numbers
    bounds_exempt: ClassVar[dict[str, tuple[int, int]]] = {"seed": (SEED_MIN, SEED_MAX)}


class SettingChanged(Event, tag="campaign.setting_changed"):
    """A game master changes one ruleset setting mid-campaign (a house rule, catalogue §31.7)."""

    key: str
    value: Any
    reason: str = ""


class SessionStarted(Event, tag="session.started"):
    """A play session opens; every event until ``session.ended`` carries its number.

    v2 renamed v1's ``name``/``date`` to ``title``/``in_game_date`` and added the dice commitment
    (the SHA-256 of the session's secret seed; see docs/verifiable-dice.md).
    """

    version: ClassVar[int] = 2
    number: int
    title: str = ""
    in_game_date: str = ""
    seed_commitment: str = ""


class SessionEnded(Event, tag="session.ended"):
    """A play session closes; ``seed_reveal`` discloses the secret seed committed at its start."""

    number: int
    seed_reveal: str = ""


class CorrectionRecorded(Event, tag="correction.recorded"):
    """A later, visible correction of an earlier event (seed 000, L9: never go back).

    ``amends`` names the positions corrected, ``changes`` the corrected field values. The ruleset
    appends the compensating events in the same command, each caused by this one.
    """

    amends: list[int]
    reason: str
    changes: dict[str, Any] = {}


class NoteRecorded(Event, tag="note.recorded"):
    """Free text from the game master: a ruling, an error noted without retroactive change (§31.7)."""

    text: str
    topic: str = ""


CORE_EVENTS: tuple[type[Event], ...] = (
    CampaignCreated,
    SettingChanged,
    SessionStarted,
    SessionEnded,
    CorrectionRecorded,
    NoteRecorded,
)


def tag_of(cls: type[Event]) -> str:
    """The stable tag of an event class."""
    return cls.__struct_config__.tag  # type: ignore[return-value]


def upcast_session_started_v1(payload: dict[str, Any]) -> dict[str, Any]:
    """session.started v1 -> v2: ``name`` became ``title``, ``date`` became ``in_game_date``."""
    out = {k: v for k, v in payload.items() if k not in ("name", "date")}
    out["title"] = payload.get("name", "")
    out["in_game_date"] = payload.get("date", "")
    return out


CORE_UPCASTERS = {("session.started", 1): upcast_session_started_v1}
