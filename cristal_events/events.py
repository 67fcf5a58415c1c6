"""Event types: frozen, keyword-only msgspec Structs with explicit, stable tags.

Every event class sets ``tag="..."`` explicitly (never the class name) and a ``version`` class
variable: the schema version of its payload. A ruleset declares its own event classes in its own
module and registers them; this module holds only the ruleset-agnostic core events.
"""

from typing import Annotated, Any, ClassVar, Literal

import msgspec

from .bounds import SEED_MAX, SEED_MIN

#: a count or a die counter: never negative, and exact in a JSON reader's double
COUNT_MAX = 2**53
Count = Annotated[int, msgspec.Meta(ge=0, le=COUNT_MAX)]
Sides = Annotated[int, msgspec.Meta(ge=1, le=1000)]
Total = Annotated[int, msgspec.Meta(ge=-(2**53), le=2**53)]


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every event. Subclasses must pass ``tag="noun.verbed"`` explicitly."""

    version: ClassVar[int] = 1


class CampaignCreated(Event, frozen=True, tag="campaign.created"):
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


class SettingChanged(Event, frozen=True, tag="campaign.setting_changed"):
    """A game master changes one ruleset setting mid-campaign (a house rule, catalogue §31.7)."""

    key: str
    value: Any
    reason: str = ""


class SessionStarted(Event, frozen=True, tag="session.started"):
    """A play session opens; every event until ``session.ended`` carries its number.

    v2 renamed v1's ``name``/``date`` to ``title``/``in_game_date`` and added the dice commitment
    (the SHA-256 of the session's secret seed; see docs/verifiable-dice.md).
    """

    version: ClassVar[int] = 2
    number: int
    title: str = ""
    in_game_date: str = ""
    seed_commitment: str = ""
    #: the dice scheme of the session: ``hmac-counter`` (docs/verifiable-dice.md); empty in sessions
    #: started before it, whose rolls derive from the log position (the legacy scheme)
    dice: str = ""
    #: entropy the players typed at ``session start --salt`` (mixed into every engine die)
    salt: str = ""


class SessionEnded(Event, frozen=True, tag="session.ended"):
    """A play session closes; ``seed_reveal`` discloses the secret seed committed at its start."""

    number: int
    seed_reveal: str = ""
    #: how many engine dice the session drew (its die counter at the end)
    engine_dice: Count = 0

    #: a die counter keeps the bounds of Count (exact in a JSON double), not those of the game's numbers
    bounds_exempt: ClassVar[dict[str, tuple[int, int]]] = {"engine_dice": (0, COUNT_MAX)}


class SessionSalted(Event, frozen=True, tag="session.salted"):
    """The players add entropy to the open session's dice after seeing its commitment, before its
    first engine die (docs/verifiable-dice.md)."""

    number: Count
    salt: str


DiceScheme = Literal["session", "seed", "fresh", "entered"]


class DieRecord(msgspec.Struct, frozen=True, kw_only=True):
    """One die handed out: its sides, its face and where the face came from."""

    sides: Sides
    face: Sides
    source: Literal["entered", "rolled"]


class RollRecord(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One evaluated expression of the command: its text, its total and each of its dice."""

    expr: str
    total: Total
    dice: list[DieRecord]
    purpose: str = ""
    #: a re-roll (Chance, a tie-break's next round, ``cristal reroll``) names the roll it replaces: its
    #: index among the rolls of the record at ``replaces_position`` (0: this same record); -1: none
    replaces: int = -1
    replaces_position: Count = 0

    bounds_exempt: ClassVar[dict[str, tuple[int, int]]] = {"replaces_position": (0, COUNT_MAX)}


class DiceRecorded(Event, frozen=True, tag="dice.rolled"):
    """Every die a command took, in the order rolled: the last event of any command that rolled.

    Written once by the service from what the command's ``Dice`` handed out; ``verify --rolls``
    reads only these records. ``scheme`` says where the engine faces came from: ``session`` (the
    open session's committed secret and salt), ``seed`` (the campaign's public ``--seed``),
    ``fresh`` (unseeded randomness, unverifiable) or ``entered`` (all typed at the table).
    ``first`` is the die counter of the command's first engine die in that stream.
    """

    rolls: list[RollRecord]
    scheme: DiceScheme
    first: Count = 0
    #: the position of the ``roll.sealed`` event of a secret command whose reveal appended this
    #: record (its dice were counted when it was sealed); 0: an ordinary record
    sealed: Count = 0

    #: a die counter keeps the bounds of Count (exact in a JSON double), not those of the game's numbers
    bounds_exempt: ClassVar[dict[str, tuple[int, int]]] = {"first": (0, COUNT_MAX), "sealed": (0, COUNT_MAX)}


class CorrectionRecorded(Event, frozen=True, tag="correction.recorded"):
    """A later, visible correction of an earlier event (seed 000, L9: never go back).

    ``amends`` names the positions corrected, ``changes`` the corrected field values. The ruleset
    appends the compensating events in the same command, each caused by this one.
    """

    amends: list[int]
    reason: str
    changes: dict[str, Any] = {}


class NoteRecorded(Event, frozen=True, tag="note.recorded"):
    """Free text from the game master: a ruling, an error noted without retroactive change (§31.7).

    ``private`` (``note --private``): a note for the game master only, left out of the players' recap
    (``cristal recap --view players``); older logs decode with the default, a public note.
    """

    text: str
    topic: str = ""
    private: bool = False


class AccessGranted(Event, frozen=True, tag="access.granted"):
    """The game master lets someone reach the table on the web (``cristal access grant``): the holder's
    name, the characters they may act for, and whether they are a game master. The token and its hash
    are never in the log (they live in the ``access_tokens`` table beside it)."""

    name: str
    characters: list[str] = []
    gm: bool = False


class AccessRevoked(Event, frozen=True, tag="access.revoked"):
    """The game master withdraws a holder's access (``cristal access revoke``): their token stops working."""

    name: str


class RollSealed(Event, frozen=True, tag="roll.sealed"):
    """A secret command of the game master (``--secret``): the log holds only a commitment to its
    events, bound to its purpose and to this event's position (docs/verifiable-dice.md, "Secret
    rolls"); its events take effect when ``roll.revealed`` appends them. ``first``/``engine_dice``:
    the session's die counter it used, so that the next command's dice follow on."""

    commitment: str
    purpose: str
    session: Count
    first: Count = 0
    engine_dice: Count = 0
    #: ``roll``: a command rolled in secret; ``override``: a fudge under the ``sealed`` policy
    kind: str = "roll"

    bounds_exempt: ClassVar[dict[str, tuple[int, int]]] = {"first": (0, COUNT_MAX), "engine_dice": (0, COUNT_MAX)}


class RollRevealed(Event, frozen=True, tag="roll.revealed"):
    """The reveal of the secret command at position ``sealed``: the nonce and the exact text of its
    events (what the commitment was computed over); the events themselves follow in the same command."""

    sealed: Count
    nonce: str
    events: str

    bounds_exempt: ClassVar[dict[str, tuple[int, int]]] = {"sealed": (0, COUNT_MAX)}


class ResultOverridden(Event, frozen=True, tag="result.overridden"):
    """The game master overrides a result (a fudge, ``cristal override``): the position overridden, the
    values set and the reason, under the campaign's ``fudge_policy``; the ruleset's compensating events
    follow in the same command (the projections apply them where the result is used)."""

    position: Count
    changes: dict[str, Any]
    reason: str
    policy: str = "disclosed"

    bounds_exempt: ClassVar[dict[str, tuple[int, int]]] = {"position": (0, COUNT_MAX)}


class RollRerolled(Event, frozen=True, tag="roll.rerolled"):
    """The game master rolls again (``cristal reroll``): the record at ``position`` and its roll ``roll``
    are replaced by the new roll of this command's record (its ``replaces`` names them), for ``reason``."""

    position: Count
    roll: Count
    reason: str

    bounds_exempt: ClassVar[dict[str, tuple[int, int]]] = {"position": (0, COUNT_MAX)}


class RequestMade(Event, frozen=True, tag="request.made"):
    """A player's action the rules leave to the game master, asked for at the web table (an XP
    purchase, a heal outside a fight, a correction, under the campaign's ``approval_*`` settings):
    the holder, the character it is for, the kind of action and the command's words. Nothing is
    decided or applied yet: ``request.approved`` or ``request.refused`` answers it."""

    holder: str
    words: list[str]
    kind: str
    character: str = ""


class RequestApproved(Event, frozen=True, tag="request.approved"):
    """The game master approves the request at position ``request``: its command ran as the holder and
    appended the events at ``positions``."""

    request: int
    positions: list[int] = []


class RequestRefused(Event, frozen=True, tag="request.refused"):
    """The game master refuses the request at position ``request`` (``reason``, optional), or the
    state no longer allowed it when approved (``reason``: the rules' own sentence)."""

    request: int
    reason: str = ""


CORE_EVENTS: tuple[type[Event], ...] = (
    CampaignCreated,
    SettingChanged,
    SessionStarted,
    SessionEnded,
    CorrectionRecorded,
    NoteRecorded,
    SessionSalted,
    DiceRecorded,
    AccessGranted,
    AccessRevoked,
    RollSealed,
    RollRevealed,
    ResultOverridden,
    RollRerolled,
    RequestMade,
    RequestApproved,
    RequestRefused,
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
