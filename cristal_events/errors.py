"""One family of errors. Every message is one sentence that a game master can act on.

The CLI turns any :class:`CristalError` into ``Error: <message>`` on stderr and a non-zero exit,
in one place (``cristal_events.cli``). Nothing is appended to the log when one is raised.
"""

from __future__ import annotations

_CONTROL = {i: f"\\x{i:02x}" for i in range(32)} | {10: "\\n", 13: "\\r", 9: "\\t", 127: "\\x7f"}


class CristalError(Exception):
    """Base class of every error the engine reports to a user."""

    exit_code = 1

    def __str__(self) -> str:
        # one line, whatever a user typed into a name that the message quotes
        return super().__str__().translate(_CONTROL)


class NotACampaign(CristalError):
    """The file is missing, is not SQLite, or holds no campaign."""


class CampaignDamaged(NotACampaign):
    """The file is an SQLite campaign whose pages are truncated or corrupted (restore a copy)."""


class SchemaTooNew(CristalError):
    """The campaign was written by a newer engine; it is left untouched."""


class MigrationError(CristalError):
    """A recorded migration was changed or removed."""


class ConcurrencyConflict(CristalError):
    """The stream moved since the caller read it (optimistic concurrency)."""


class StoreUnavailable(CristalError):
    """The database is locked past the timeout, read-only, or the disk is full."""


class ReadModelsBehind(CristalError):
    """The read models could not hold everything in the log (raised by ``projections.runner`` when
    its caller asked for no list of the problems). A command whose read models could not follow is
    not failed: ``Campaign.execute`` returns it and adds a warning to ``Campaign.warnings``."""


class EventDecodeError(CristalError):
    """A stored or imported payload does not match its event type."""


class IntegrityError(CristalError):
    """The hash chain, the triggers or the migrations do not verify."""


class RuleError(CristalError):
    """A command is refused by the rules (not enough XP, level limit, unknown race, ...)."""


class UnknownEntity(RuleError):
    """A character, combat, item, class, spell or other name does not exist."""


class OutOfBounds(CristalError):
    """A number is not plain ASCII digits, or lies beyond the bounds of :mod:`cristal_events.bounds`
    (a command, an event it would record, an import, an option); nothing was written."""


class DiceError(CristalError):
    """A dice or formula expression is malformed, too large, or the entered faces do not fit it."""


class ContentError(CristalError):
    """A content pack (races, classes, spells, items ...) is malformed."""


class ScriptError(CristalError):
    """A campaign script that cannot be run: malformed, or a step it may not take (names the line and the reason)."""
