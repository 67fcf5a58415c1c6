"""Hit locations on non-humanoid creatures (I-L630-649); the humanoid table is in :mod:`.combat`."""

import msgspec

from cristal_events.errors import RuleError
from cristal_events.rulesets.illergan.content import Content
from cristal_events.rulesets.illergan.settings import DEFAULT, IllerganSettings

from .texts import _

# ---------------------------------------------------------------- non-humanoid zones (I-L630-649)


class Body(msgspec.Struct, frozen=True, kw_only=True):
    """How many of each part a creature has; limbs that could be either count as posterior (I-L636)."""

    anterior_left: int = 0
    anterior_right: int = 0
    posterior_left: int = 0
    posterior_right: int = 0
    wings_left: int = 0
    wings_right: int = 0
    tails: int = 0
    heads: int = 1

    def legs(self) -> int:
        """The limbs it stands on: every anterior and posterior limb (I-L416 counts legs)."""
        return self.anterior_left + self.anterior_right + self.posterior_left + self.posterior_right


_PART = {
    "membres antérieurs gauches": "anterior_left", "membres antérieurs droits": "anterior_right",
    "membres postérieurs gauches": "posterior_left", "membres postérieurs droits": "posterior_right",
    "ailes gauches": "wings_left", "ailes droites": "wings_right", "queues": "tails", "têtes": "heads",
}


def split_range(low: int, high: int, n: int, *, middle_first: bool) -> list[tuple[int, int]]:
    """Split [low, high] in n sub-ranges in order (head-nearest / leftmost first).

    Limbs and wings (I-L635): the larger sub-ranges go first (head-nearest). Heads and tails (I-L637):
    with an odd count the middle one gets the larger share; with an even count the leftmost (A20).

    >>> split_range(1, 10, 3, middle_first=False), split_range(81, 90, 3, middle_first=True)
    ([(1, 4), (5, 7), (8, 10)], [(81, 83), (84, 87), (88, 90)])
    """
    width = high - low + 1
    base, rem = divmod(width, n)
    sizes = [base] * n
    if middle_first and n % 2 == 1:
        mid = n // 2
        order = [mid] + [i for k in range(1, mid + 1) for i in (mid - k, mid + k)]
    else:
        order = list(range(n))
    for i in order[:rem]:
        sizes[i] += 1
    out, start = [], low
    for s in sizes:
        out.append((start, start + s - 1))
        start += s
    return out


def nonhumanoid_zone(face: int, body: Body, content: Content, settings: IllerganSettings = DEFAULT) -> tuple[str, int]:
    """(zone, index) on the non-humanoid table; index 1 = head-nearest limb or leftmost head/tail.

    A part the creature lacks sends the hit to the trunk (I-L634). The text writes "51 à 60 : queues"
    and "60 à 80 : tronc": 60 follows ``nonhumanoid_roll60`` (A19). 91-100 are missing (G21): as for
    humanoids, 91-98 the attacker chooses ("choix") and 99-100 hit nothing ("aucune").
    """
    if face >= 91:
        return ("choix", 0) if face <= 98 else ("aucune", 0)
    rows = [r for r in content.pack.nonhumanoid_zones if r.low <= face <= r.high]
    if len(rows) > 1:
        rows = [r for r in rows if (r.zone == "tronc") == (settings.nonhumanoid_roll60 == "trunk")]
    row = rows[0]
    if row.zone == "tronc":
        return ("tronc", 1)
    n = getattr(body, _PART[row.zone])
    if n == 0:
        return ("tronc", 1)
    low, high = row.low, row.high
    if row.zone == "queues" and settings.nonhumanoid_roll60 == "trunk":
        high = 59
    for i, (a, b) in enumerate(split_range(low, high, n, middle_first=row.zone in ("têtes", "queues")), 1):
        if a <= face <= b:
            return (row.zone, i)
    raise RuleError(_('No zone covers the face {face}.').format(face=face))


def limb_gone(body: Body | None, zone: str, limbs_lost: tuple[str, ...]) -> bool:
    """Every limb of that zone is already lost (I-L318): one for a humanoid's arm or leg, the body's count
    of that part for a creature (a wolf's second left foreleg is still there after the first)."""
    part = _PART.get(zone)
    count = getattr(body, part) if body is not None and part else 1
    return limbs_lost.count(zone) >= max(1, count)
