"""The one place that composes: open -> load state -> decide -> append -> fold -> hooks.

Python API::

    from cristal_events import init_campaign, open_campaign
    camp = init_campaign("taverne.db", name="La Taverne", ruleset="cristal", rounding="round", seed=7)
    camp.start_session(title="Arrivée", in_game_date="1er Mai")
    recs = camp.execute(SomeRulesetCommand(...), faces=[13, 4, 4])   # faces rolled at the table
    camp.state_at(position)                                           # time travel

A command is decided inside one ``BEGIN IMMEDIATE`` transaction on the state folded up to the last
position, so two writers never decide on a stale state; a refused command raises and appends
nothing. ``hooks`` run after each commit (the projections runner attaches itself there).
"""

import os
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, ClassVar

import msgspec

from . import bounds
from .codec import Codec
from .errors import CristalError, NotACampaign, RuleError
from .events import (
    CORE_EVENTS,
    CORE_UPCASTERS,
    AccessGranted,
    AccessRevoked,
    CampaignCreated,
    CorrectionRecorded,
    DiceRecorded,
    DieRecord,
    NoteRecorded,
    RequestApproved,
    RequestMade,
    RequestRefused,
    ResultOverridden,
    RollRecord,
    RollRerolled,
    RollRevealed,
    RollSealed,
    SessionEnded,
    SessionSalted,
    SessionStarted,
    SettingChanged,
    tag_of,
)
from .i18n import N_, _, ngettext
from .log_rows import sha256
from .records import RecordedEvent
from .rounding import MODES
from .ruleset import CORE_SETTING_KEYS, Context, Emit, Ruleset
from .rulesets import get as get_ruleset
from .session_dice import engine_dice, joined_salt, sealed_commitment
from .store import Store, VerifyReport, create_store, new_event_id, new_event_ids, open_store
from .version import __version__

if TYPE_CHECKING:  # pathlib where a secret's file is used (store.path_text says why); receipts where asked for
    from pathlib import Path

    from .receipts import Receipt, ReceiptProblem

CAMPAIGN_STREAM = "campaign"
SNAPSHOT_EVERY = int(os.environ.get("CRISTAL_SNAPSHOT_EVERY", "1000"))
#: at most about this many snapshots are kept: older ones are thinned to an even spacing that doubles
#: as the log grows, so the cache stays linear in the state's size (not quadratic) and time travel
#: still folds at most two spacings (~1/32 of the log) from the snapshot before the position
SNAPSHOT_KEEP = int(os.environ.get("CRISTAL_SNAPSHOT_KEEP", "64"))
#: a command that leaves the newest snapshot this many events or more behind the head writes one at the
#: head (the older one of its bucket that was not the bucket's first is dropped): a campaign opened for
#: the next command (a one-shot CLI process) folds at most this many events from it, not up to
#: SNAPSHOT_EVERY (benchmarks/README.md, "Eighth session: the one-shot CLI write")
SNAPSHOT_BEHIND = int(os.environ.get("CRISTAL_SNAPSHOT_BEHIND", "250"))


def snapshot_spacing(last_position: int) -> int:
    """The spacing of the snapshots kept for a log of ``last_position`` events (SNAPSHOT_EVERY x 2^k)."""
    spacing = max(1, SNAPSHOT_EVERY)
    while SNAPSHOT_KEEP > 0 and last_position // spacing > SNAPSHOT_KEEP:
        spacing *= 2
    return spacing


Progress = Callable[[int, int], None]
#: the domain of a snapshot's digest (changes if the digest's input ever does)
SNAPSHOT_DIGEST = "cristal-events snapshot v1"


def snapshot_digest(state_version: str, position: int, event_hash: str, state: bytes) -> str:
    """SHA-256 binding a snapshot's state to the chain hash of the event at its position.

    Unkeyed on purpose: anyone may recompute it, so it proves the snapshot was not changed or moved
    by a plain edit of the table; a forger who recomputes it is caught by
    :meth:`Campaign.check_snapshots` (``cristal verify``), which folds the log."""
    head = f"{SNAPSHOT_DIGEST}\n{state_version}\n{position}\n{event_hash}\n".encode()
    return sha256(size=len(head) + len(state))(head + state).hexdigest()


class SnapshotProblem(msgspec.Struct, kw_only=True):
    """A snapshot that is not bound to the log or differs from a fold of it."""

    position: int
    problem: str


class SnapshotRebuild(msgspec.Struct, kw_only=True):
    """The outcome of :meth:`Campaign.rebuild_snapshots`: snapshots written, problems of the old ones."""

    written: int
    replaced: list[SnapshotProblem] = []


def _same_state(a: "World", b: "World") -> bool:
    """Two states equal field by field (a decoded snapshot may hold a list where the fold a tuple)."""
    if a.core == b.core and a.rules == b.rules:
        return True
    return msgspec.to_builtins((a.core, a.rules)) == msgspec.to_builtins((b.core, b.rules))


class Verification(msgspec.Struct, kw_only=True):
    """What :meth:`Campaign.verify` found: the chain's report and each further check asked for, every
    problem in one list (the chain's first), and the first position named bad."""

    chain: VerifyReport
    problems: list[str]
    first_bad_position: int | None = None
    receipts: dict[str, Any] | None = None   # {"checked": n, "problems": [...]} when receipts were given
    snapshots: dict[str, Any] | None = None  # {"checked": n, "problems": [...]} when asked (intact chain)
    rolls: Any = None                        # the FairnessReport (cristal_events.fairness) with rolls=True

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def events(self) -> int:
        return self.chain.events


class CoreState(msgspec.Struct, kw_only=True):
    """What the core itself tracks: the header, the sessions, the last position folded."""

    header: CampaignCreated
    settings: dict[str, Any] = {}
    session: int | None = None
    sessions: int = 0
    session_titles: dict[int, str] = {}
    position: int = 0
    #: engine dice drawn so far in the open session (folded from its dice.rolled records)
    dice_counter: int = 0
    #: engine dice drawn so far outside sessions from the public --seed
    seed_counter: int = 0
    #: the players' salt of the open session (session start --salt, then session salt)
    session_salt: str = ""
    #: the positions of the secret rolls (``roll.sealed``) not revealed yet
    sealed: list[int] = []
    #: the positions of the players' requests (``request.made``) not approved or refused yet
    requests: list[int] = []


class World(msgspec.Struct):
    """The core state and the ruleset's state after the same events."""

    core: CoreState
    rules: Any


# ------------------------------------------------------------------ core commands
class StartSession(msgspec.Struct, frozen=True, kw_only=True):
    title: str = ""
    in_game_date: str = ""
    salt: str = ""


class SaltSession(msgspec.Struct, frozen=True, kw_only=True):
    """The players' entropy, added after the commitment is shown and before the first engine die."""

    salt: str


class EndSession(msgspec.Struct, frozen=True, kw_only=True):
    pass


class RecordNote(msgspec.Struct, frozen=True, kw_only=True):
    text: str
    topic: str = ""
    private: bool = False


class ChangeSetting(msgspec.Struct, frozen=True, kw_only=True):
    key: str
    value: Any
    reason: str = ""


class Correct(msgspec.Struct, frozen=True, kw_only=True):
    position: int
    reason: str
    changes: dict[str, Any] = {}


class RevealRoll(msgspec.Struct, frozen=True, kw_only=True):
    """Reveal the secret roll sealed at ``position`` (``cristal reveal``): its events take effect."""

    position: int


class Override(msgspec.Struct, frozen=True, kw_only=True):
    """Override the result of the event at ``position`` (a fudge, ``cristal override``), under the
    campaign's ``fudge_policy``: the ruleset's compensation applies it where the result is used."""

    position: int
    reason: str
    changes: dict[str, Any] = {}


class MakeRequest(msgspec.Struct, frozen=True, kw_only=True):
    """A player asks the game master for an action (``request.made``): nothing is applied yet."""

    holder: str
    words: list[str]
    kind: str
    character: str = ""


class DecideRequest(msgspec.Struct, frozen=True, kw_only=True):
    """The game master's answer to the request at ``request``: approved (the events its command
    appended, at ``positions``) or refused (``reason``)."""

    request: int
    approve: bool
    positions: list[int] = []
    reason: str = ""


class Reroll(msgspec.Struct, frozen=True, kw_only=True):
    """The game master rolls again (``cristal reroll``) the roll ``roll`` (-1: the last one) of the dice
    record at ``position``; the new roll names the one it replaces."""

    position: int
    reason: str
    roll: int = -1


#: the core's own campaign settings (beside the ruleset's): key -> (default, the values allowed)
FUDGE_POLICIES = ("forbidden", "disclosed", "sealed")
#: who decides a player's action the rules leave to the game master, per kind of action (the web
#: table's requests, docs/web.md): ``gm`` (a request the game master approves) or ``free`` (it runs)
APPROVALS = ("gm", "free")
#: each approval setting -> the kind of action a request names
APPROVAL_KINDS = {"approval_xp_purchase": "xp_purchase", "approval_heal": "heal",
                  "approval_correction": "correction"}
CORE_SETTINGS: dict[str, tuple[str, tuple[str, ...]]] = {
    "fudge_policy": ("disclosed", FUDGE_POLICIES),
    "approval_xp_purchase": ("gm", APPROVALS),
    "approval_heal": ("gm", APPROVALS),
    "approval_correction": ("gm", APPROVALS),
}
assert set(CORE_SETTINGS) == CORE_SETTING_KEYS


def core_setting(settings: dict[str, Any], key: str) -> str:
    """A core setting's value in ``settings`` (its default in a campaign created before it existed)."""
    value = settings.get(key)
    return value if isinstance(value, str) else CORE_SETTINGS[key][0]


def _check_core_setting(key: str, value: Any) -> str:
    allowed = CORE_SETTINGS[key][1]
    if value not in allowed:
        raise RuleError(_("The setting {key} is one of {allowed}, not {value!r}.").format(
            key=key, allowed=", ".join(allowed), value=value))
    return str(value)


#: the core's commands (a secret one must be a ruleset's rolling command)
_CORE_COMMANDS = (StartSession, SaltSession, EndSession, RecordNote, ChangeSetting, Correct, RevealRoll,
                  Override, Reroll, MakeRequest, DecideRequest)

#: the streams of a fight: a roll there moves its turn order, so it cannot stay sealed
FIGHT_STREAMS = ("combat:", "fight:")


class GrantAccess(msgspec.Struct, frozen=True, kw_only=True):
    """Web access for ``name``; ``token_hash`` goes to the access table, never to the log."""

    name: str
    token_hash: str
    characters: list[str] = []
    gm: bool = False


class RevokeAccess(msgspec.Struct, frozen=True, kw_only=True):
    name: str


def _random_hex(nbytes: int) -> str:
    """``secrets.token_hex(nbytes)`` (the same ``os.urandom`` bytes) without importing ``secrets``,
    whose imports cost every command's start-up a few milliseconds."""
    return os.urandom(nbytes).hex()


def codec_for(ruleset: Ruleset) -> Codec:
    return Codec(CORE_EVENTS + tuple(ruleset.events), {**CORE_UPCASTERS, **ruleset.upcasters})


DICE_SCHEME = "hmac-counter"
SECRETS_SUFFIX = ".secrets"
SEALED_SUFFIX = ".sealed"


def secrets_path(campaign_path: str | os.PathLike[str]) -> "Path":
    """The file beside the campaign that holds the open session's dice secret (mode 0600)."""
    from pathlib import Path

    return Path(str(campaign_path) + SECRETS_SUFFIX)


def sealed_path(campaign_path: str | os.PathLike[str]) -> "Path":
    """The file beside the campaign that holds its sealed rolls until revealed (mode 0600)."""
    from pathlib import Path

    return Path(str(campaign_path) + SEALED_SUFFIX)


def _write_owner_only(path: "Path", body: bytes, what: str) -> None:
    """Replace ``path`` atomically with ``body``: a new file created with mode 0600, then renamed."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        tmp.unlink(missing_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, 0o600)  # whatever the umask
            os.write(fd, body)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise CristalError(_("{what} could not be written to {path} ({reason}).").format(
            what=_(what), path=path, reason=exc.strerror or exc)) from None


def _fold_dice(core: CoreState, ev: DiceRecorded, position: int) -> CoreState:
    if ev.sealed:  # a revealed secret roll's dice were counted when it was sealed
        return msgspec.structs.replace(core, position=position)
    n = engine_dice(ev)
    if ev.scheme == "session":
        return msgspec.structs.replace(core, dice_counter=core.dice_counter + n, position=position)
    if ev.scheme == "seed":
        return msgspec.structs.replace(core, seed_counter=core.seed_counter + n, position=position)
    return msgspec.structs.replace(core, position=position)


_CORE_EVOLVERS: dict[type, Callable[[CoreState, Any, int], CoreState]] = {
    SessionStarted: lambda core, ev, position: msgspec.structs.replace(
        core, session=ev.number, sessions=max(core.sessions, ev.number),
        session_titles={**core.session_titles, ev.number: ev.title}, position=position,
        dice_counter=0, session_salt=ev.salt),
    SessionEnded: lambda core, ev, position: msgspec.structs.replace(core, session=None, position=position,
                                                                     dice_counter=0, session_salt=""),
    SessionSalted: lambda core, ev, position: msgspec.structs.replace(
        core, session_salt=joined_salt(core.session_salt, ev.salt), position=position),
    DiceRecorded: _fold_dice,
    RollSealed: lambda core, ev, position: msgspec.structs.replace(
        core, sealed=[*core.sealed, position], dice_counter=core.dice_counter + ev.engine_dice, position=position),
    RollRevealed: lambda core, ev, position: msgspec.structs.replace(
        core, sealed=[p for p in core.sealed if p != ev.sealed], position=position),
    SettingChanged: lambda core, ev, position: msgspec.structs.replace(
        core, settings={**core.settings, ev.key: ev.value}, position=position),
    RequestMade: lambda core, ev, position: msgspec.structs.replace(
        core, requests=[*core.requests, position], position=position),
    RequestApproved: lambda core, ev, position: msgspec.structs.replace(
        core, requests=[p for p in core.requests if p != ev.request], position=position),
    RequestRefused: lambda core, ev, position: msgspec.structs.replace(
        core, requests=[p for p in core.requests if p != ev.request], position=position),
}


def core_evolve(core: CoreState, rec: RecordedEvent) -> CoreState:
    """Fold one event into the core state (pure)."""
    fn = _CORE_EVOLVERS.get(type(rec.event))
    if fn is not None:
        return fn(core, rec.event, rec.position)
    return core if rec.position == core.position else msgspec.structs.replace(core, position=rec.position)


class Campaign:
    """An open campaign: its store, its ruleset, and its state kept current in memory."""

    #: called with each warning's sentence (the CLI prints it on stderr); None: only recorded
    on_warning: ClassVar[Callable[[str], None] | None] = None

    def __init__(self, store: Store, ruleset: Ruleset, header: CampaignCreated):
        self.store = store
        self.ruleset = ruleset
        self.header = header
        self.hooks: list[Callable[[Campaign], Any]] = []
        self._world: World | None = None
        self._before: World | None = None  # the state before this campaign's last command
        self._travelled: World | None = None  # the last state world_at had to rebuild
        self._snapshot_at = 0  # the position of the newest snapshot this campaign read or wrote
        #: whether a command far from the newest snapshot writes one at the head (SNAPSHOT_BEHIND): for
        #: the next process's fold. A face that keeps the campaign open (the console, the web table)
        #: turns it off, holding its state in memory, and calls :meth:`snapshot_head` when it closes:
        #: a 1M state's snapshot every 250 events put 30-40 ms into one command in about 80 at the
        #: console (p99 of an attack 32-41 ms against 8-10 ms; benchmarks/README.md, "Eighth session")
        self.head_snapshots = True
        self._evolvers: dict[type, Any] = {}  # the ruleset's typed evolver of each event class, found once
        #: what :meth:`warn` reported: a snapshot ignored, or "Recorded (position N) but ..." for each
        #: command whose hooks failed after its commit (the CLI prints each on stderr as it is reported
        #: and still exits 0: the command is in the log)
        self.warnings: list[str] = []
        self._secrets: dict[int, str] | None = None  # the secrets file, read once
        #: the events a secret command will append when revealed (the game master's view of it)
        self.last_sealed: list[RecordedEvent] = []
        self._lost: list[int] = []  # sealed rolls a session end could not reveal (their file lost them)
        #: when a list: every event this campaign appends while it is set, in order (an approval sets
        #: it, runs the requested command, and names the positions it finds here: exactly that
        #: command's, whoever else writes); None (the default): nothing is kept
        self.appended: list[RecordedEvent] | None = None

    # ---------------------------------------------------------------- opening
    @classmethod
    def open(cls, path: str | os.PathLike[str], *, readonly: bool = False, timeout: float | None = None) -> "Campaign":
        store = open_store(path, readonly=readonly, timeout=timeout)
        first = next(store.read_all(decode=False, until=1), None)
        if first is None or first.type != "campaign.created":
            store.close()
            raise NotACampaign(_("{path} holds no campaign (its log does not start with campaign.created).").format(path=path))
        header_ruleset = msgspec.json.decode(first.payload).get("ruleset", "")
        ruleset = get_ruleset(header_ruleset)
        store.codec = codec_for(ruleset)
        header = store.codec.read(first.type, first.schema_version, first.payload)  # as it was written
        assert isinstance(header, CampaignCreated)
        camp = cls(store, ruleset, header)
        if not readonly:
            camp._move_table_secrets()
        return camp

    @classmethod
    def create(cls, path: str | os.PathLike[str], *, name: str, ruleset: str = "cristal", rounding: str = "round",
               seed: int | None = None, settings: dict[str, Any] | None = None, actor: str = "GM",
               fudge_policy: str | None = None) -> "Campaign":
        settings = dict(settings or {})
        core = {key: _check_core_setting(key, settings.pop(key)) for key in CORE_SETTINGS if key in settings}
        if fudge_policy is not None:
            core["fudge_policy"] = _check_core_setting("fudge_policy", fudge_policy)
        core = {key: core.get(key, default) for key, (default, _) in CORE_SETTINGS.items()}
        if rounding not in MODES:
            raise CristalError(_("Unknown rounding mode {rounding!r}; use 'round' or 'truncate'.").format(rounding=rounding))
        if not name.strip():
            raise CristalError(_("A campaign needs a name."))
        rs = get_ruleset(ruleset)
        header = CampaignCreated(campaign_id=new_event_id(), name=name, ruleset=ruleset, rounding=rounding,
                                 seed=seed, settings={}, engine_version=__version__)
        merged = {**rs.default_settings(), **(settings or {})}
        bounds.check(msgspec.structs.replace(header, settings=merged))  # past the log's bounds, before the rules' own
        validated = rs.settings(msgspec.structs.replace(header, settings=merged))
        header = msgspec.structs.replace(header, settings={**msgspec.to_builtins(validated), **core})
        bounds.check(header)  # a setting past the bounds (the seed: any 64-bit number)
        store = create_store(path, codec_for(rs))
        store.append(CAMPAIGN_STREAM, [header], expected_version=0, actor=actor)
        return cls(store, rs, header)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> "Campaign":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ state
    def _initial(self) -> World:
        core = CoreState(header=self.header, settings=dict(self.header.settings))
        return World(core, self.ruleset.initial_state(self.header))

    def fold(self, world: World, rec: RecordedEvent) -> World:
        event = rec.event
        evolve = self._evolvers.get(type(event))
        if evolve is None:
            evolve = self._evolvers[type(event)] = self.ruleset.typed_evolver(type(event))
        return World(core_evolve(world.core, rec), evolve(world.rules, event, rec))

    def state(self) -> World:
        """The current state: the cached one caught up with any event appended since (by anyone)."""
        world = self._world
        if world is None:
            world = self._load_snapshot(None) or self._initial()
            self._snapshot_at = world.core.position
        last = self.store.last_position()
        if world.core.position < last:
            for rec in self.store.read_all(after=world.core.position, hashes=False):
                world = self.fold(world, rec)
        self._world = world
        return world

    def state_at(self, position: int) -> World:
        """The state right after ``position``: time travel, from the nearest snapshot at or before it."""
        world = self._load_snapshot(position) or self._initial()
        for rec in self.store.read_all(after=world.core.position, until=position, hashes=False):
            world = self.fold(world, rec)
        return world

    def world_at(self, position: int) -> World:
        """The state right after ``position``, as :meth:`state_at`, but without reading the log when it
        is the current state, the state before this campaign's last command or the last one it
        returned (kept in memory: read models starting from one position share one state)."""
        for world in (self._world, self._before, self._travelled):
            if world is not None and world.core.position == position:
                return world
        self._travelled = self.state_at(position)
        return self._travelled

    def state_at_session_end(self, session: int) -> World:
        span = self.store.session_span(session)
        if span is None:
            raise CristalError(_("Session {session} has no events.").format(session=session))
        return self.state_at(span[1])

    def _state_key(self) -> str:
        return f"{self.ruleset.name}:{self.ruleset.state_version}"

    def _load_snapshot(self, position: int | None) -> World | None:
        """The newest usable snapshot at or before ``position`` (None: any), or None.

        A snapshot is used only when the log still holds, at its position, the event hash stored
        with it and its digest binds its state to that hash (:func:`snapshot_digest`). Any other
        is ignored with a warning (:meth:`warn`) and the state is folded from the log instead."""
        key = self._state_key()
        for pos, event_hash, digest, blob in self.store.snapshots(key, upto=position, newest_first=True):
            flaw = self._snapshot_flaw(key, pos, event_hash, digest, blob)
            if flaw is not None:
                self.warn(_("{flaw}; it was ignored and the state folded from the log (run 'cristal verify', "
                            "then 'cristal rebuild')").format(flaw=flaw))
                continue
            world = self._decode_snapshot(blob)
            if world is not None and world.core.position == pos:
                return world
            # a snapshot of an older state type: only a cache, fold from the log instead
        return None

    def _snapshot_flaw(self, key: str, position: int, event_hash: str, digest: str, blob: bytes) -> str | None:
        """Why the snapshot at ``position`` is not bound to this log, or None when it is."""
        stored = self.store.hash_at(position)
        if stored is None:
            return _("the snapshot at position {position} lies past the end of the log").format(position=position)
        if stored != event_hash:
            return _("the snapshot at position {position} was taken of another event than the log holds there").format(position=position)
        if snapshot_digest(key, position, event_hash, blob) != digest:
            return _("the snapshot at position {position} was changed after it was written (digest mismatch)").format(position=position)
        return None

    def _decode_snapshot(self, blob: bytes) -> World | None:
        try:
            core, rules = msgspec.msgpack.decode(blob, type=tuple[CoreState, self.ruleset.state_type])  # type: ignore[name-defined]  # a type built at run time
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None
        return World(core, rules)

    def warn(self, message: str) -> None:
        """Record a warning (``self.warnings``, once each) and pass it to :attr:`on_warning` when set."""
        if message in self.warnings:
            return
        self.warnings.append(message)
        sink = Campaign.on_warning
        if sink is not None:
            sink(message)

    def write_snapshot(self, world: World) -> bool:
        """Cache ``world`` (derived data, outside the event log's triggers), bound to the hash of the
        event at its position. False (nothing written) when the log holds no event there, or when the
        state holds a number past 64 bits (one an older engine let in): a cache can do without it."""
        position = world.core.position
        event_hash = self.store.hash_at(position)
        if event_hash is None:
            return False
        key = self._state_key()
        try:
            blob = msgspec.msgpack.encode((world.core, world.rules))
        except OverflowError:  # a number an older engine let in, past 64 bits: the state is folded instead
            return False
        self.store.put_snapshot(position, key, event_hash, snapshot_digest(key, position, event_hash, blob), blob)
        return True

    def _maybe_snapshot(self, world: World, before: int) -> None:
        """A snapshot after a command that crossed a multiple of SNAPSHOT_EVERY, or that leaves the
        newest snapshot SNAPSHOT_BEHIND events or more behind (then the snapshots are thinned to the
        first of each bucket and the latest one, so that a bucket holds at most two)."""
        position = world.core.position
        if SNAPSHOT_EVERY <= 0:
            return
        if position // SNAPSHOT_EVERY > before // SNAPSHOT_EVERY:
            if self.write_snapshot(world):
                self._snapshot_at = position
                self._thin_snapshots(position)
        elif self.head_snapshots and SNAPSHOT_BEHIND > 0 and position - self._snapshot_at >= SNAPSHOT_BEHIND:
            self._snapshot_head(world)

    def _snapshot_head(self, world: World) -> None:
        if self.write_snapshot(world):
            self._snapshot_at = world.core.position
            self._thin_snapshots(world.core.position, always=True)

    def snapshot_head(self) -> None:
        """Write the snapshot a command would have written at the head (the newest one SNAPSHOT_BEHIND
        events or more behind this campaign's state), in a transaction of its own: what a face that
        turned :attr:`head_snapshots` off calls before it closes the campaign. Nothing when snapshots
        are off, when no state was folded here, or when the newest snapshot is near enough."""
        world = self._world
        if world is None or SNAPSHOT_EVERY <= 0 or SNAPSHOT_BEHIND <= 0:
            return
        if world.core.position - self._snapshot_at < SNAPSHOT_BEHIND:
            return
        with self.store.transaction():
            if self.store.last_position() == world.core.position:  # another writer moved on: leave it to them
                self._snapshot_head(world)

    def _thin_snapshots(self, last: int, *, always: bool = False) -> None:
        """Keep the first snapshot of each ``snapshot_spacing(last)`` bucket, and the latest one
        (``always``: also while the spacing is SNAPSHOT_EVERY, after a snapshot written at the head)."""
        spacing = snapshot_spacing(last)
        if spacing == SNAPSHOT_EVERY and not always:
            return
        key = self._state_key()
        seen: set[int] = set()
        drop = []
        for p in self.store.snapshot_positions(key)[:-1]:
            if p // spacing in seen:
                drop.append(p)
            seen.add(p // spacing)
        self.store.drop_snapshots(key, drop)

    def _fold_to(self, positions: Iterable[int], progress: Progress | None = None) -> Iterator[tuple[int, World]]:
        """Fold the log from the start once, yielding ``(position, state right after it)`` at each
        of ``positions`` the log holds, in order (``progress(done, total)`` every 1,000 events)."""
        targets = sorted(set(positions))
        if not targets:
            return
        world, total, todo, n = self._initial(), targets[-1], iter(targets), 0
        want = next(todo, None)
        for rec in self.store.read_all(until=total, hashes=False):
            world = self.fold(world, rec)
            n += 1
            if progress is not None and n % 1000 == 0:
                progress(rec.position, total)
            while want is not None and want <= rec.position:
                if want == rec.position:
                    yield want, world
                want = next(todo, None)
        if progress is not None:
            progress(total, total)

    def check_snapshots(self, *, progress: Progress | None = None) -> list[SnapshotProblem]:
        """Every snapshot of this engine's state checked: bound to the log (its event hash and its
        digest) and equal to a fold of the log up to its position. Returns the problems by position.

        This is what catches a snapshot forged with its digest recomputed too: the digest is
        unkeyed, so such a snapshot passes the check made when it is used; only this fold sees it."""
        key = self._state_key()
        problems: dict[int, str] = {}
        bound: list[int] = []
        for pos, event_hash, digest, blob in self.store.snapshots(key):
            flaw = self._snapshot_flaw(key, pos, event_hash, digest, blob)
            if flaw is None:
                bound.append(pos)
            else:
                problems[pos] = flaw
        for pos, world in self._fold_to(bound, progress):
            kept = self.store.snapshot_state(key, pos)
            stored = self._decode_snapshot(kept) if kept is not None else None
            if stored is None:
                problems[pos] = _("the snapshot at position {pos} cannot be read as this engine's state").format(pos=pos)
            elif not _same_state(stored, world):
                problems[pos] = _("the snapshot at position {pos} differs from a fold of the log up to it").format(pos=pos)
        return [SnapshotProblem(position=p, problem=problems[p]) for p in sorted(problems)]

    def rebuild_snapshots(self, *, progress: Progress | None = None) -> SnapshotRebuild:
        """Check every snapshot (:meth:`check_snapshots`), then replace them all by snapshots folded
        from the log (one per ``snapshot_spacing`` and one at the last position), in one transaction.
        The problems of the old snapshots are returned with the count written."""
        with self.store.transaction():
            problems = self.check_snapshots(progress=progress)
            key = self._state_key()
            self.store.drop_other_snapshots(key)
            self.store.drop_snapshots(key, self.store.snapshot_positions(key))
            last, written = self.store.last_position(), 0
            if SNAPSHOT_EVERY > 0 and last > 0:
                spacing = snapshot_spacing(last)
                for _, world in self._fold_to([*range(spacing, last + 1, spacing), last], progress):
                    written += self.write_snapshot(world)
        self._world = self._before = self._travelled = None
        return SnapshotRebuild(written=written, replaced=problems)

    # ------------------------------------------------------------ dice secrets
    def secrets_file(self) -> "Path":
        """Where the open session's secret is kept: ``<campaign>.secrets`` (see :func:`secrets_path`)."""
        # a PostgreSQL campaign keeps it in a file outside the database (PgStore.secrets_base)
        return secrets_path(getattr(self.store, "secrets_base", self.store.path))

    def _read_secrets(self) -> dict[int, str]:
        try:
            data = msgspec.json.decode(self.secrets_file().read_bytes())
        except (OSError, msgspec.DecodeError):
            return {}
        if not isinstance(data, dict) or data.get("campaign_id") != self.header.campaign_id:
            return {}  # another campaign's file (a copy renamed beside this one) holds no secret of ours
        sessions = data.get("sessions")
        if not isinstance(sessions, dict):
            return {}
        return {int(k): v for k, v in sessions.items() if str(k).isdigit() and isinstance(v, str)}

    def session_secret(self, number: int) -> str | None:
        """The secret seed of session ``number`` while it is open (None when it is not kept): read from
        the file beside the campaign, or from the legacy ``session_secrets`` table of a campaign opened
        read-only before its first writable open moved it out."""
        if self._secrets is None or number not in self._secrets:
            self._secrets = self._read_secrets()
        secret = self._secrets.get(number)
        if secret is None:
            secret = self.store.legacy_secret(number)
        return secret

    def _write_secrets(self, sessions: dict[int, str]) -> None:
        """Replace the secrets file atomically: a new file created with mode 0600, then renamed."""
        path = self.secrets_file()
        if not sessions:
            path.unlink(missing_ok=True)
            self._secrets = {}
            return
        body = msgspec.json.encode({"campaign_id": self.header.campaign_id,
                                    "sessions": {str(k): v for k, v in sessions.items()}})
        _write_owner_only(path, body, N_("The dice secret"))
        self._secrets = dict(sessions)

    # ------------------------------------------------------------ secret rolls
    def sealed_file(self) -> "Path":
        """Where the sealed rolls' nonces and events are kept until revealed: ``<campaign>.sealed``
        (mode 0600, beside the session secret; see :func:`sealed_path`)."""
        return sealed_path(getattr(self.store, "secrets_base", self.store.path))

    def _read_sealed(self) -> dict[int, dict[str, str]]:
        try:
            data = msgspec.json.decode(self.sealed_file().read_bytes())
        except (OSError, msgspec.DecodeError):
            return {}
        if not isinstance(data, dict) or data.get("campaign_id") != self.header.campaign_id:
            return {}
        rolls = data.get("rolls")
        if not isinstance(rolls, dict):
            return {}
        return {int(k): v for k, v in rolls.items() if str(k).isdigit() and isinstance(v, dict)}

    def _write_sealed(self, rolls: dict[int, dict[str, str]]) -> None:
        path = self.sealed_file()
        if not rolls:
            path.unlink(missing_ok=True)
            return
        body = msgspec.json.encode({"campaign_id": self.header.campaign_id,
                                    "rolls": {str(k): v for k, v in sorted(rolls.items())}})
        _write_owner_only(path, body, N_("The sealed roll"))

    def sealed_rolls(self) -> list[int]:
        """The positions of the secret rolls not revealed yet (folded from the log: anyone can count them)."""
        return list(self.state().core.sealed)

    def sealed_events(self, position: int) -> list[RecordedEvent]:
        """What the secret roll sealed at ``position`` will append when revealed, for the game master's
        eyes (read from the sealed file; empty when it is not kept there). Their positions are not
        the ones they will take: each carries the sealed roll's."""
        kept = self._read_sealed().get(position)
        if kept is None:
            return []
        return [RecordedEvent(position, "", stream, 0, tag_of(type(ev)), type(ev).version,
                              msgspec.json.encode(ev).decode(), "", None, "", None, None, "", "", ev)
                for stream, ev in self._unseal(kept["events"])]

    def _unseal(self, blob: str) -> list[tuple[str, Any]]:
        """The sealed events of a blob: ``[[stream, event JSON], ...]`` decoded with this campaign's codec."""
        codec = self.store.codec
        assert codec is not None
        out = []
        for stream, text in msgspec.json.decode(blob, type=list[tuple[str, str]]):
            tag = msgspec.json.decode(text).get("type", "")
            out.append((stream, codec.decode(tag, codec.versions.get(tag, 1), text)))
        return out

    def _forget_sealed(self, positions: list[int]) -> None:
        """Drop revealed rolls from the sealed file (they are in the log now)."""
        try:
            with self.store.transaction():
                kept = self._read_sealed()
                for p in positions:
                    kept.pop(p, None)
                self._write_sealed(kept)
        except CristalError:
            pass  # revealed in the log: a copy left in the owner's file gives nothing away

    def _reveal(self, world: World, position: int, *, strict: bool = True) -> list[Emit] | None:
        """The events revealing the roll sealed at ``position`` (None when its sealed file lost them,
        or, not ``strict`` (a session's end, which must not be stopped by it), changed them)."""
        kept = self._read_sealed().get(position)
        original = self.store.get(position)
        if kept is None or original is None or not isinstance(original.event, RollSealed):
            return None
        sealed = original.event
        nonce, blob = kept.get("nonce", ""), kept.get("events", "")
        if sealed_commitment(position, sealed.purpose, nonce, blob) != sealed.commitment:
            if not strict:
                return None
            raise RuleError(_("The sealed file's copy of the secret roll at position {position} does not match "
                              "its commitment, so it is not revealed ({file} was changed).").format(
                                  position=position, file=self.sealed_file()))
        events = self._unseal(blob)
        return [Emit(CAMPAIGN_STREAM, RollRevealed(sealed=position, nonce=nonce, events=blob)),
                *(Emit(stream, ev) for stream, ev in events)]

    def _seal(self, world: World, command: Any, ctx: Context, emits: list[Emit], kind: str) -> list[Emit]:
        """The one ``roll.sealed`` event standing for ``emits`` in the log; the nonce and the events go
        to the sealed file (docs/verifiable-dice.md, "Secret rolls")."""
        core = world.core
        override = kind == "override"
        if core.session is None:
            raise RuleError(_("An override under the 'sealed' fudge policy is revealed at its session's end, so it "
                              "needs an open session ('cristal session start').") if override else
                            _("A secret roll is revealed at its session's end, so it needs an open session "
                              "('cristal session start')."))
        for e in emits:
            if e.stream.startswith(FIGHT_STREAMS):
                raise RuleError(_("An override under the 'sealed' fudge policy cannot touch a fight: its turn order "
                                  "follows every roll, and every later command of the fight would depend on what "
                                  "stays sealed (roll openly, or enter the faces rolled behind the screen with "
                                  "--dice).") if override else
                                _("A secret roll cannot touch a fight: its turn order follows every roll, and every "
                                  "later command of the fight would depend on what stays sealed (roll openly, or "
                                  "enter the faces rolled behind the screen with --dice)."))
        position = self.store.last_position() + 1
        purpose = f"{type(command).__name__} {msgspec.json.encode(command).decode()}"
        dice = ctx._dice
        if dice is not None and dice.used:
            emits = [*emits, Emit(CAMPAIGN_STREAM, msgspec.structs.replace(self._dice_record(ctx, world), sealed=position))]
        elif kind == "roll":
            raise RuleError(_("--secret seals a roll, and this command rolled no dice."))
        codec = self.store.codec
        assert codec is not None
        blob = msgspec.json.encode([[e.stream, msgspec.json.encode(e.event).decode()] for e in emits]).decode()
        nonce = _random_hex(32)
        last = emits[-1].event
        count = engine_dice(last) if isinstance(last, DiceRecorded) else 0
        first = last.first if isinstance(last, DiceRecorded) and count else core.dice_counter
        sealed = RollSealed(commitment=sealed_commitment(position, purpose, nonce, blob), purpose=purpose,
                            session=core.session, first=first, engine_dice=count, kind=kind)
        self._write_sealed({**self._read_sealed(), position: {"nonce": nonce, "purpose": purpose, "events": blob}})
        return [Emit(CAMPAIGN_STREAM, sealed)]

    def _dice_record(self, ctx: Context, world: World) -> DiceRecorded:
        """:func:`dice_record`, each re-roll's ``replaces`` found: one of the command's own rolls, or the
        last record of the session (of the log, outside sessions) holding the roll an earlier command stored."""
        record = dice_record(ctx)
        dice = ctx._dice
        if dice is None or not dice.replaced:
            return record
        kept = [i for i, (_, sides) in enumerate(dice.record) if sides]  # the record's rolls (with dice)
        index = {i: n for n, i in enumerate(kept)}
        rolls = list(record.rolls)
        earlier: list[tuple[int, DiceRecorded]] | None = None
        for i, target in dice.replaced.items():
            if i not in index:
                continue
            where: tuple[int, int] | None = None
            if isinstance(target, tuple):
                where = target
            else:
                own = [n for j, n in index.items() if dice.record[j][0] is target]
                if own:
                    where = (0, own[0])
                else:
                    if earlier is None:
                        span = self.store.session_span(world.core.session) if world.core.session else None
                        after = span[0] - 1 if span else 0
                        earlier = [(r.position, r.event) for r in self.store.read_all(after=after, type="dice.rolled")
                                   if isinstance(r.event, DiceRecorded)]
                    faces = list(target.faces)
                    for pos, ev in reversed(earlier):
                        found = [n for n, r in enumerate(ev.rolls)
                                 if r.expr == target.expr and r.total == target.total and [d.face for d in r.dice] == faces]
                        if found:
                            where = (pos, found[-1])
                            break
            if where is not None:
                rolls[index[i]] = msgspec.structs.replace(rolls[index[i]], replaces_position=where[0], replaces=where[1])
        return msgspec.structs.replace(record, rolls=rolls)


    def _move_table_secrets(self) -> None:
        """Move an open session's secret out of the legacy ``session_secrets`` table (which a viewer of
        the campaign file can read) into the secrets file, and empty the table."""
        if not self.store.has_legacy_secrets():
            return
        with self.store.transaction():
            rows = self.store.legacy_secrets()
            open_ = self.state().core.session
            if open_ is not None and open_ in rows:
                self._write_secrets({**self._read_secrets(), open_: rows[open_]})
            self.store.clear_legacy_secrets()

    def _dice_source(self, core: CoreState) -> dict[str, Any]:
        """The engine's keyed stream for a command decided on ``core`` (docs/verifiable-dice.md)."""
        if core.session is not None:
            secret = self.session_secret(core.session)
            if secret is None:
                return {"dice_scheme": "session", "dice_refusal": (
                    _("The dice secret of session {session} is missing ({secrets_file} is gone), so the engine "
                      "will not roll: enter the faces rolled at the table with --dice, or end the session (its "
                      "engine rolls then cannot be verified).").format(session=core.session, secrets_file=self.secrets_file()))}
            return {"dice_scheme": "session", "dice_key": secret, "dice_salt": core.session_salt,
                    "dice_first": core.dice_counter}
        if self.header.seed is not None:
            return {"dice_scheme": "seed", "dice_key": f"campaign-seed:{self.header.seed}",
                    "dice_first": core.seed_counter}
        return {"dice_scheme": "fresh", "dice_key": _random_hex(16)}

    # --------------------------------------------------------------- commands
    def context(self, world: World, *, actor: str, faces: list[int] | None) -> Context:
        core = world.core
        header = msgspec.structs.replace(self.header, settings=core.settings)
        return Context(header=header, settings=self.ruleset.settings(header), rounding=self.header.rounding,
                       session=core.session, position=core.position, actor=actor, faces=faces,
                       **self._dice_source(core))

    def execute(self, command: Any, *, actor: str = "GM", faces: Iterable[int] | None = None,
                secret: bool = False) -> list[RecordedEvent]:
        """Decide ``command`` against the current state and append its events atomically.

        ``faces`` are the dice faces rolled at the table, in the order the rule rolls them; without
        them the engine rolls with its seeded RNG. Raises a CristalError and appends nothing when
        the command is refused.

        ``secret``: the game master's secret roll (``--secret``): the log gets one ``roll.sealed``
        event, a commitment to the command's events, which the sealed file keeps until they are
        revealed (:attr:`last_sealed` holds them for the game master's eyes). An :class:`Override`
        under the ``sealed`` fudge policy is sealed so too.
        """
        faces_list = list(faces) if faces is not None else None
        bounds.check(command)
        self.last_sealed = []
        self._lost = []
        with self.store.transaction():
            world = self.state()
            ctx = self.context(world, actor=actor, faces=faces_list)
            kind = "roll" if secret else None
            if isinstance(command, Override) and core_setting(world.core.settings, "fudge_policy") == "sealed":
                kind = "override"
            if secret and isinstance(command, _CORE_COMMANDS):
                raise RuleError(_("Only a rolling command can be secret, not {command}.").format(
                    command=type(command).__name__))
            # a new session's secret is drawn here and handed to decide, which only commits to it;
            # the service writes it beside the campaign once decide has accepted the command
            new_secret = _random_hex(32) if isinstance(command, StartSession) else None
            emits, causes = self._decide(world, command, ctx, new_secret=new_secret)
            for e in emits:  # a total the events carry (a balance, PV after) keeps the bounds too
                bounds.check(e.event, name=tag_of(type(e.event)), sentence=bounds.EVENT)
            if ctx._dice is not None:
                ctx._dice.finish()
            elif faces_list:
                raise RuleError(_("Dice faces were entered but this command rolls no dice."))
            if kind is not None:
                emits, causes = self._seal(world, command, ctx, emits, kind), [None]
            elif ctx._dice is not None and ctx._dice.used:  # a formula without dice needs no record
                emits.append(Emit(CAMPAIGN_STREAM, self._dice_record(ctx, world)))
                causes.append(0 if len(emits) > 1 else None)
            session = self._session_for(world, command)
            if new_secret is not None and session is not None:
                self._write_secrets({session: new_secret})  # the only secret kept: no other session is open
            recs = self._append(emits, causes, actor=actor, session=session)
        revealed = [r.event.sealed for r in recs if isinstance(r.event, RollRevealed)]
        if revealed:
            self._forget_sealed(revealed)
        ended = next((r.event for r in recs if isinstance(r.event, SessionEnded)), None)
        if isinstance(command, EndSession) and ended is not None:
            self._forget_secret(ended.number)
        if kind is not None and recs:
            self.last_sealed = self.sealed_events(recs[0].position)
        for position in self._lost:
            self.warn(f"The secret roll at position {position} could not be revealed: {self.sealed_file()} no "
                      "longer holds it as it was sealed, so it stays sealed for good (verify --rolls reports it)")
        if self.appended is not None:
            self.appended.extend(recs)
        self._after_commit(recs)
        if recs:
            for advice in self.ruleset.advise(world.rules, self.state().rules, recs):
                self.warn(advice)
        return recs

    def _after_commit(self, recs: list[RecordedEvent]) -> None:
        """Run the hooks. The command is in the log whatever they do: a hook that fails (with any
        exception) or reports problems (returns a list of sentences) becomes one warning
        "Recorded (position N) but ..." in :attr:`warnings`, never a failed command."""
        problems: list[str] = []
        for hook in self.hooks:
            try:
                out = hook(self)
            except Exception as exc:  # noqa: BLE001 - the command committed: nothing may undo that report
                text = str(exc) if isinstance(exc, CristalError) else f"{type(exc).__name__}: {exc}"
                text = text.rstrip(".").removesuffix(_("; nothing was written"))  # the command was
                problems.append(_("the read models could not follow ({text})").format(text=text))
                continue
            if isinstance(out, list):
                problems.extend(p for p in out if isinstance(p, str))
        if problems:
            where = recs[-1].position if recs else self.store.last_position()
            self.warn(_("Recorded (position {where}) but {items}; run 'cristal rebuild' once the cause is "
                        "fixed.").format(where=where, items='; '.join(problems)))

    def _forget_secret(self, number: int) -> None:
        """Drop a revealed secret from the secrets file (it is in the log now), under the write lock so
        that a session another writer starts meanwhile keeps its own secret."""
        try:
            with self.store.transaction():
                kept = self._read_secrets()
                if number in kept and self.state().core.session != number:
                    del kept[number]
                    self._write_secrets(kept)
        except CristalError:
            pass  # the secret is revealed in the log: a copy left in the owner's file gives nothing away

    def _session_for(self, world: World, command: Any) -> int | None:
        if isinstance(command, StartSession):
            return world.core.sessions + 1
        return world.core.session

    def _decide(self, world: World, command: Any, ctx: Context, *,
                new_secret: str | None = None) -> tuple[list[Emit], list[int | None]]:
        """Core commands are decided here; everything else goes to the ruleset. ``new_secret`` is the
        dice secret of the session a ``StartSession`` opens (drawn and kept by :meth:`execute`)."""
        core = world.core
        match command:
            case StartSession():
                if core.session is not None:
                    raise RuleError(_("Session {session} is still open; end it before starting another.").format(session=core.session))
                number = core.sessions + 1
                if new_secret is None:
                    raise RuleError(_("A session needs its dice secret to start."))
                commitment = sha256()(new_secret.encode()).hexdigest()
                ev = SessionStarted(number=number, title=command.title, in_game_date=command.in_game_date,
                                    seed_commitment=commitment, dice=DICE_SCHEME, salt=command.salt)
                return [Emit(CAMPAIGN_STREAM, ev)], [None]
            case SaltSession():
                if core.session is None:
                    raise RuleError(_("No session is open; 'session start --salt TEXT' salts the next one."))
                if not command.salt.strip():
                    raise RuleError(_("A salt needs some text (anything the players choose)."))
                if core.dice_counter:
                    n = core.dice_counter
                    raise RuleError(ngettext("Session {session} has already rolled {n} engine die; a salt must come before the first one.",
                                             "Session {session} has already rolled {n} engine dice; a salt must come before the first one.",
                                             n).format(session=core.session, n=n))
                return [Emit(CAMPAIGN_STREAM, SessionSalted(number=core.session, salt=command.salt))], [None]
            case EndSession():
                if core.session is None:
                    raise RuleError(_("No session is open."))
                emits: list[Emit] = []
                causes: list[int | None] = []
                for position in core.sealed:  # every secret roll still sealed is revealed first
                    revealed = self._reveal(world, position, strict=False)
                    if revealed is None:
                        self._lost.append(position)
                        continue
                    at = len(emits)
                    emits += revealed
                    causes += [None] + [at] * (len(revealed) - 1)
                secret = self.session_secret(core.session) or ""
                emits.append(Emit(CAMPAIGN_STREAM, SessionEnded(number=core.session, seed_reveal=secret,
                                                                engine_dice=core.dice_counter)))
                return emits, [*causes, None]
            case RevealRoll():
                if command.position not in core.sealed:
                    raise RuleError(_("There is no sealed roll at position {position} "
                                      "('cristal log --type roll.sealed' lists them).").format(position=command.position))
                revealed = self._reveal(world, command.position)
                if revealed is None:
                    raise RuleError(_("The secret roll at position {position} cannot be revealed: "
                                      "{file} no longer holds it, so it stays sealed for good "
                                      "(verify --rolls reports it).").format(position=command.position,
                                                                             file=self.sealed_file()))
                return revealed, [None] + [0] * (len(revealed) - 1)
            case Override():
                policy = core_setting(core.settings, "fudge_policy")
                if policy == "forbidden":
                    raise RuleError(_("This campaign's fudge policy is 'forbidden': a result stands as rolled (the "
                                      "table may change it with 'cristal settings --set fudge_policy=disclosed "
                                      "--reason ...', which the log shows)."))
                if not command.reason.strip():
                    raise RuleError(_("An override needs a reason (--reason)."))
                if not command.changes:
                    raise RuleError(_("An override needs what it sets (--set FIELD=VALUE, e.g. --set damage=4)."))
                original = self.store.get(command.position)
                if original is None:
                    raise RuleError(_("There is no event at position {position}.").format(position=command.position))
                if isinstance(original.event, CORE_EVENTS):
                    raise RuleError(_("Position {position} holds a {type} event: override the event that used the "
                                      "result (the attack, the damage, the save) as 'cristal log' lists it.").format(
                                          position=command.position, type=original.type))
                comp = self.ruleset.compensate(world.rules, original, dict(command.changes), ctx)
                head = Emit(CAMPAIGN_STREAM, ResultOverridden(position=command.position, changes=dict(command.changes),
                                                              reason=command.reason, policy=policy))
                return [head, *comp], [None] + [0] * len(comp)
            case Reroll():
                return self._decide_reroll(command, ctx), [None]
            case RecordNote():
                if not command.text.strip():
                    raise RuleError(_("A note needs some text."))
                return [Emit(CAMPAIGN_STREAM, NoteRecorded(text=command.text, topic=command.topic,
                                                                      private=command.private))], [None]
            case ChangeSetting():
                if command.key in CORE_SETTINGS:
                    value = _check_core_setting(command.key, command.value)
                    return [Emit(CAMPAIGN_STREAM, SettingChanged(key=command.key, value=value,
                                                                 reason=command.reason))], [None]
                if command.key == "rounding":
                    raise RuleError(_("The rounding mode is fixed for the whole campaign (seed 000, L23)."))
                if command.key not in self.ruleset.default_settings():
                    raise RuleError(_("Unknown {name} setting {key!r}.").format(name=self.ruleset.name, key=command.key))
                self.ruleset.settings(ctx.header, {command.key: command.value})
                return [Emit(CAMPAIGN_STREAM, SettingChanged(key=command.key, value=command.value,
                                                             reason=command.reason))], [None]
            case Correct():
                if not command.reason.strip():
                    raise RuleError(_("A correction needs a reason."))
                original = self.store.get(command.position)
                if original is None:
                    raise RuleError(_("There is no event at position {position}.").format(position=command.position))
                comp = self.ruleset.compensate(world.rules, original, dict(command.changes), ctx)
                head = Emit(CAMPAIGN_STREAM, CorrectionRecorded(amends=[command.position], reason=command.reason,
                                                                changes=dict(command.changes)))
                return [head, *comp], [None] + [0] * len(comp)
            case GrantAccess() | RevokeAccess():
                return self._decide_access(world, command), [None]
            case MakeRequest():
                if not command.words:
                    raise RuleError(_("A request needs the words of its command."))
                if command.kind not in APPROVAL_KINDS.values():
                    raise RuleError(_("A request is one of {items}, not {kind!r}.").format(
                        items=", ".join(APPROVAL_KINDS.values()), kind=command.kind))
                return [Emit(CAMPAIGN_STREAM, RequestMade(holder=command.holder, words=list(command.words),
                                                          kind=command.kind, character=command.character))], [None]
            case DecideRequest():
                if command.request not in core.requests:
                    raise RuleError(_("There is no pending request at position {position} ('cristal requests' "
                                      "lists them).").format(position=command.request))
                if command.approve:
                    event: RequestApproved | RequestRefused = RequestApproved(request=command.request, positions=list(command.positions))
                else:
                    event = RequestRefused(request=command.request, reason=command.reason)
                return [Emit(CAMPAIGN_STREAM, event)], [None]
        emits = self.ruleset.decide(world.rules, command, ctx)
        return list(emits), [None] * len(emits)

    def _decide_reroll(self, command: Reroll, ctx: Context) -> list[Emit]:
        """A GM's "roll again": the same expression rolled anew (only its dice when it names a sheet
        variable, which the record does not keep), its record naming the roll it replaces."""
        from .dice import variables_in

        if not command.reason.strip():
            raise RuleError(_("A re-roll needs a reason (--reason)."))
        original = self.store.get(command.position)
        if original is None or not isinstance(original.event, DiceRecorded):
            raise RuleError(_("Position {position} is not a dice record; "
                              "'cristal log --type dice.rolled' lists them.").format(position=command.position))
        rolls = original.event.rolls
        index = command.roll if command.roll >= 0 else len(rolls) - 1
        if not 0 <= index < len(rolls):
            raise RuleError(_("The dice record at position {position} has {count} roll(s): "
                              "give --roll 0 to {last}.").format(position=command.position, count=len(rolls),
                                                                 last=len(rolls) - 1))
        old = rolls[index]
        expr = " + ".join(f"1d{d.sides}" for d in old.dice) if variables_in(old.expr) else old.expr
        ctx.dice().roll(expr, purpose=f"reroll: {old.purpose}" if old.purpose else "reroll",
                        rounding=ctx.rounding, replaces=(command.position, index))  # type: ignore[arg-type]
        return [Emit(CAMPAIGN_STREAM, RollRerolled(position=command.position, roll=index, reason=command.reason))]

    def _decide_access(self, world: World, command: "GrantAccess | RevokeAccess") -> list[Emit]:
        """Access is decided here and its token row written in the command's own transaction."""
        from .display import plain_id

        name = plain_id(command.name, "A holder's name")
        held = self.store.access_holder(name)
        if isinstance(command, RevokeAccess):
            if held is None:
                raise RuleError(_("'{name}' holds no access; 'cristal access list' shows who does.").format(name=name))
            self.store.revoke_access(name)
            return [Emit(CAMPAIGN_STREAM, AccessRevoked(name=name))]
        if held is not None:
            raise RuleError(_("'{name}' already holds access; revoke it first to give a new token.").format(name=name))
        known = getattr(world.rules, "characters", {})
        for cid in command.characters:
            if cid not in known:
                raise RuleError(_("Unknown character '{cid}'; known characters: {value}.").format(cid=cid, value=', '.join(sorted(known)) or _('none')))
        if not command.gm and not command.characters:
            raise RuleError(_("A player's access needs at least one --character (or --gm for a game master)."))
        chars = list(dict.fromkeys(command.characters))
        self.store.grant_access(name, command.token_hash, chars, command.gm)
        return [Emit(CAMPAIGN_STREAM, AccessGranted(name=name, characters=chars, gm=command.gm))]

    def _append(self, emits: list[Emit], causes: list[int | None], *, actor: str, session: int | None) -> list[RecordedEvent]:
        correlation = new_event_id()
        ids = new_event_ids(len(emits))
        positions: list[int] = []
        i = 0
        while i < len(emits):  # consecutive events of one stream go in one append
            j = i
            while j < len(emits) and emits[j].stream == emits[i].stream:
                j += 1
            stream = emits[i].stream
            cause_ids = [ids[c] if c is not None else None for c in causes[i:j]]
            positions += self.store.append(
                stream, [e.event for e in emits[i:j]], self.store.stream_version(stream), event_ids=ids[i:j],
                actor=actor, session=session, correlation_id=correlation, causation_ids=cause_ids,
            )
            i = j
        recs = list(self.store.read_all(after=positions[0] - 1, until=positions[-1])) if positions else []
        world = self._before = self._world
        if world is not None:
            before = world.core.position
            for rec in recs:
                world = self.fold(world, rec)
            self._world = world
            self._maybe_snapshot(world, before)
        return recs

    # -------------------------------------------------------------- shortcuts
    def start_session(self, title: str = "", in_game_date: str = "", *, salt: str = "",
                      actor: str = "GM") -> list[RecordedEvent]:
        return self.execute(StartSession(title=title, in_game_date=in_game_date, salt=salt), actor=actor)

    def salt_session(self, salt: str, *, actor: str = "GM") -> list[RecordedEvent]:
        return self.execute(SaltSession(salt=salt), actor=actor)

    def end_session(self, *, actor: str = "GM") -> list[RecordedEvent]:
        return self.execute(EndSession(), actor=actor)

    def correct(self, position: int, reason: str, changes: dict[str, Any] | None = None, *,
                actor: str = "GM") -> list[RecordedEvent]:
        return self.execute(Correct(position=position, reason=reason, changes=changes or {}), actor=actor)

    def verify(self, *, workers: int | None = None, progress: Progress | None = None,
               receipts: Iterable["Receipt"] = (), snapshots: bool = False, rolls: bool = False,
               read_models: Callable[..., list[str]] | None = None,
               progress_for: Callable[[str], Progress | None] | None = None) -> Verification:
        """The hash chain and the log's guards checked (:meth:`Store.verify`), then what is asked:

        * ``receipts``: each must still name its hash at its position (:meth:`verify_receipts`);
        * ``snapshots``: each snapshot bound to the log and equal to its fold (:meth:`check_snapshots`),
          on an intact chain;
        * ``read_models``: the function comparing the stored read models to a rebuild,
          ``read_models(campaign, progress=...) -> [problem]`` (``projections.runner.verify``: the read
          models sit above the service, so the caller names it), on an intact chain;
        * ``rolls``: every engine roll re-derived from the revealed seeds (:mod:`cristal_events.fairness`).

        ``progress`` follows the chain; ``progress_for(stage)`` gives the progress of each stage
        (``"chain"``, ``"snapshots"``, ``"read models"``, ``"dice"``)."""
        def stage(name: str) -> Progress | None:
            return progress_for(name) if progress_for is not None else None

        chain = self.store.verify(workers=workers, progress=progress or stage("chain"))
        out = Verification(chain=chain, problems=list(chain.problems), first_bad_position=chain.first_bad_position)
        given = list(receipts)
        if given:
            bad = self.verify_receipts(given)
            out.problems += [b.problem for b in bad]
            if bad and out.first_bad_position is None:
                out.first_bad_position = min(b.position for b in bad)
            out.receipts = {"checked": len(given), "problems": [b.problem for b in bad]}
        if snapshots and chain.ok:
            snaps = self.check_snapshots(progress=stage("snapshots"))
            out.problems += [f"snapshot: {p.problem}" for p in snaps]
            if snaps and out.first_bad_position is None:
                out.first_bad_position = snaps[0].position
            out.snapshots = {"checked": len(self.store.snapshot_positions(self._state_key())),
                             "problems": [p.problem for p in snaps]}
        if read_models is not None and chain.ok:
            out.problems += read_models(self, progress=stage("read models"))
        if rolls:
            from .fairness import verify_rolls

            fair = verify_rolls(self, progress=stage("dice"))
            out.problems += [f"dice: {p}" for p in fair.problems]
            out.rolls = fair
            if fair.mismatches and out.first_bad_position is None:
                out.first_bad_position = fair.mismatches[0].position
        return out

    def receipt(self) -> "Receipt":
        """The receipt of the last event: its position and chain hash (see :mod:`cristal_events.receipts`)."""
        from .receipts import Receipt

        return Receipt(*self.store.head())

    def session_receipts(self) -> "dict[int, Receipt]":
        """Each ended session's receipt: the position and chain hash of its ``session.ended`` event."""
        from .receipts import Receipt

        return {s: Receipt(p, h) for s, (p, h) in self.store.session_ends().items()}

    def verify_receipts(self, receipts: "Iterable[Receipt]") -> "list[ReceiptProblem]":
        """The receipts this log no longer honours (another hash at the position, or no event there)."""
        from .receipts import verify_receipts

        return verify_receipts(receipts, self.store.hash_at, self.store.last_position())

    def summarize(self, rec: RecordedEvent) -> str:
        """One readable line for any event, core or ruleset."""
        return self.summarizer(type(rec.event))(rec)

    def summarizer(self, cls: type) -> Callable[[RecordedEvent], str]:
        """The function that summarizes the recorded events of class ``cls`` (what ``summarize`` calls)."""
        core = _CORE_SUMMARIES.get(cls)
        if core is not None:
            return lambda rec: core(rec.event)
        return self.ruleset.summarizer(cls)

    def narrate(self, before: World, rec: RecordedEvent, after: World) -> str:
        """The event told in the book's terms with the state change it made (ruleset events; core events:
        their summary). ``before``/``after`` are the worlds around it (``after = fold(before, rec)``)."""
        if isinstance(rec.event, CORE_EVENTS):
            return self.summarize(rec)
        return self.ruleset.narrate(before.rules, rec, after.rules)


def dice_record(ctx: Context) -> DiceRecorded:
    """The record of every die the command's ``Dice`` handed out, in the order rolled."""
    dice = ctx._dice
    assert dice is not None
    rolls = [RollRecord(expr=roll.expr, total=roll.total, purpose=roll.purpose,
                        dice=[DieRecord(sides=s, face=f, source=roll.source) for s, f in zip(sides, roll.faces)])
             for roll, sides in dice.record if sides]
    if not dice.engine:
        return DiceRecorded(rolls=rolls, scheme="entered")
    scheme = ctx.dice_scheme
    first = dice.start if scheme != "fresh" else 0
    return DiceRecorded(rolls=rolls, scheme=scheme, first=first)  # type: ignore[arg-type]


#: how the dice of a record were drawn, as its summary words it (translated where shown)
_SCHEME_WORDS = {"session": N_("by the engine"), "seed": N_("by the engine (public seed)"),
                 "fresh": N_("by the engine (unverifiable chance)"), "entered": N_("at the table")}


def _dice_summary(ev: DiceRecorded) -> str:
    def one(r: RollRecord) -> str:
        faces = ", ".join(str(d.face) for d in r.dice)
        text = f"{r.expr} = {r.total} [{faces}]" + (f" ({r.purpose})" if r.purpose else "")
        return text + _replaces_text(r)

    where = _(", no. {first}").format(first=ev.first) if ev.scheme in ("session", "seed") else ""
    scheme = _SCHEME_WORDS.get(ev.scheme)
    return _("Dice {scheme}{where}: {rolls}").format(
        scheme=_(scheme) if scheme else ev.scheme, where=where, rolls=" ; ".join(one(r) for r in ev.rolls))


def _replaces_text(r: RollRecord) -> str:
    """`` ↺ remplace le jet 2 (position 812)``: the roll a re-roll replaces (empty for a first roll)."""
    if r.replaces < 0:
        return ""
    where = (_("position {position}").format(position=r.replaces_position) if r.replaces_position
             else _("same command"))
    return _(" ↺ replaces roll {roll} ({where})").format(roll=r.replaces, where=where)


def _changes(changes: dict[str, Any]) -> str:
    return ", ".join(f"{k} = {v}" for k, v in changes.items())


def _sealed_summary(ev: RollSealed) -> str:
    dice = (_(", {count} engine die/dice from no. {first}").format(count=ev.engine_dice, first=ev.first)
            if ev.engine_dice else "")
    what = (_("GM's sealed override ({command}{dice}): commitment {commitment}…") if ev.kind == "override"
            else _("GM's sealed secret roll ({command}{dice}): commitment {commitment}…"))
    return what.format(command=ev.purpose.split(" ", 1)[0], dice=dice, commitment=ev.commitment[:16])


def _correction_summary(ev: CorrectionRecorded) -> str:
    changes = ", ".join(f"{k} = {v}" for k, v in ev.changes.items())
    text = _("Correction of position {positions}: {reason}").format(positions=", ".join(map(str, ev.amends)),
                                                                    reason=ev.reason)
    return text + (f" ({changes})" if changes else "")


def _session_started(ev: SessionStarted) -> str:
    text = _("Session {number} begins: {title}").format(number=ev.number, title=ev.title or _("untitled"))
    return text + (f" — {ev.in_game_date}" if ev.in_game_date else "")


def _note(ev: NoteRecorded) -> str:
    if ev.private:
        if ev.topic:
            return _("GM's private note ({topic}): {text}").format(topic=ev.topic, text=ev.text)
        return _("GM's private note: {text}").format(text=ev.text)
    if ev.topic:
        return _("GM's note ({topic}): {text}").format(topic=ev.topic, text=ev.text)
    return _("GM's note: {text}").format(text=ev.text)


def _access_granted(ev: AccessGranted) -> str:
    if ev.gm:
        return _("Access to the table given to {name} (GM)").format(name=ev.name)
    return _("Access to the table given to {name} for {characters}").format(name=ev.name,
                                                                            characters=", ".join(ev.characters))


def _setting_changed(ev: SettingChanged) -> str:
    text = _("Setting {key} = {value!r}").format(key=ev.key, value=ev.value)
    return text + (_(": {reason}").format(reason=ev.reason) if ev.reason else "")


def _request_made(ev: RequestMade) -> str:
    return _("Request {kind} from {holder}{character}: « {words} » (awaits the game master)").format(
        kind=ev.kind, holder=ev.holder, character=f" ({ev.character})" if ev.character else "",
        words=" ".join(ev.words))


def _request_approved(ev: RequestApproved) -> str:
    return _("Request at position {request} approved: positions {positions}").format(
        request=ev.request, positions=", ".join(map(str, ev.positions)) or "-")


def _request_refused(ev: RequestRefused) -> str:
    text = _("Request at position {request} refused").format(request=ev.request)
    return text + (_(": {reason}").format(reason=ev.reason) if ev.reason else "")


#: the one-line summary of each core event (the ruleset summarizes its own)
_CORE_SUMMARIES: dict[type, Callable[[Any], str]] = {
    CampaignCreated: lambda ev: _("Campaign « {name} » created (rules {ruleset}, rounding {rounding})").format(
        name=ev.name, ruleset=ev.ruleset, rounding=ev.rounding),
    SessionStarted: _session_started,
    SessionEnded: lambda ev: _("Session {number} ended").format(number=ev.number),
    SessionSalted: lambda ev: _("Players' salt added to the dice of session {number}: « {salt} »").format(
        number=ev.number, salt=ev.salt),
    DiceRecorded: _dice_summary,
    CorrectionRecorded: _correction_summary,
    NoteRecorded: _note,
    AccessGranted: _access_granted,
    AccessRevoked: lambda ev: _("Access to the table withdrawn from {name}").format(name=ev.name),
    SettingChanged: _setting_changed,
    RollSealed: _sealed_summary,
    RollRevealed: lambda ev: _("Secret roll of position {position} revealed (verifiable commitment)").format(
        position=ev.sealed),
    ResultOverridden: lambda ev: _("GM's override ({policy}) of the result of position {position}: "
                                   "{changes} — {reason}").format(policy=ev.policy, position=ev.position,
                                                                  changes=_changes(ev.changes), reason=ev.reason),
    RollRerolled: lambda ev: _("The GM rolls again roll {roll} of position {position}: {reason}").format(
        roll=ev.roll, position=ev.position, reason=ev.reason),
    RequestMade: _request_made,
    RequestApproved: _request_approved,
    RequestRefused: _request_refused,
}


def open_campaign(path: str | os.PathLike[str], **kw: Any) -> Campaign:
    """Open an existing campaign file."""
    return Campaign.open(path, **kw)


def init_campaign(path: str | os.PathLike[str], **kw: Any) -> Campaign:
    """Create a new campaign file; see :meth:`Campaign.create`."""
    return Campaign.create(path, **kw)
