"""Illergan content: what the text states (``data/core.json``) plus the game master's pack.

The seed text leaves most tables out (catalogue Part D). ``core.json`` holds ONLY what the text
states; a campaign adds a game-master pack (JSON or TOML, same schema) with the rest. A rule that
needs a value neither file gives raises :class:`RuleError` naming the value and its Part D id,
through the ``Content.require_*`` helpers.

Merging a pack into the core: named entries (races, cults ...) are matched by name; a field the
core leaves at its default takes the pack's value, a field the core states may not be contradicted.
Dict tables (power die per rank ...) are joined key by key under the same rule.

A game master who wants a named entry (a race, class, skill, spell, weapon ...) to differ from what the
text or an earlier pack states marks that entry ``"override": true``: it then replaces the entry of the
same name whole (a field it leaves out takes its default, not the text's value), the
``content.pack_loaded`` event records which entries it overrides, and ``content show`` marks them.
Without the mark a contradiction is refused, naming the entry and the field.
"""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import msgspec

from cristal_events.errors import ContentError, RuleError, UnknownEntity
from cristal_events.packs import MAX_PACK_BYTES, nested_too_deeply, parse_pack

from .texts import _

DATA = Path(__file__).parent / "data"

DamageType = Literal["P", "T", "C"]
SkillType = Literal["Pratique", "Charisme", "Savoir"]
Grip = Literal["one", "bastard", "two"]


class _Entry(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class _Named(_Entry, frozen=True, kw_only=True):
    """A named (or faced) entry of a pack; ``override`` lets it replace what the text or an earlier pack states."""

    override: bool = False


class Acuities(_Entry, frozen=True, kw_only=True):
    """The three acuities in % (I-L12-13, I-L327)."""

    visual: int = 0
    auditory: int = 0
    olfactory: int = 0


class Race(_Named, frozen=True, kw_only=True):
    name: str
    race_skill: str = ""
    acuities: Acuities | None = None
    description: str = ""


class ClassDef(_Named, frozen=True, kw_only=True):
    name: str
    religious: bool = False
    chooses_god: bool = False
    has_magic: bool = True
    magics_at_creation: int | None = None
    spells_at_creation: int | None = None
    incantation_types: tuple[Literal["orale", "gestuelle", "canalisateur"], ...] = ()
    characteristic_xp_costs: dict[str, int] = {}
    bonuses: tuple[str, ...] = ()
    critical_ceiling: int = 2


class Heritage(_Named, frozen=True, kw_only=True):
    name: str
    xp: int = 400
    imposed_skills: tuple[str, ...] = ()
    # Most heritage xp that may go to one target (a skill, "characteristics", "bottes"); I-L352 "avec contraintes".
    spend_limits: dict[str, int] = {}


class Skill(_Named, frozen=True, kw_only=True):
    name: str
    rank: Literal[0, 1, 2] | None = None
    type: SkillType | None = None
    characteristic: str = ""
    innate: bool = False
    weapon_mastery: bool = False


class Gift(_Named, frozen=True, kw_only=True):
    face: int
    name: str
    effect: str = ""


class CounterEffect(_Named, frozen=True, kw_only=True):
    face: int
    effect: str


class SR(_Entry, frozen=True, kw_only=True):
    """Seuil de Résistance per damage type (I-L424, A14)."""

    P: int = 0
    T: int = 0
    C: int = 0


class Armour(_Named, frozen=True, kw_only=True):
    name: str
    type: Literal["Guerrier", "Gardien", "Mage", "Mage de mêlée", "Roublard"] | None = None
    facture: int = 1
    price_c: int
    sr: SR
    dex_malus: int = 0
    dep_malus: int = 0
    components: tuple[str, ...] = ()


class Weapon(_Named, frozen=True, kw_only=True):
    name: str
    grip: Grip = "one"
    damage_type: DamageType = "T"
    fp_bonus: int = 0
    fixed_damage: int | None = None
    range_m: tuple[float, float, float] | None = None
    thrown_range_m: tuple[float, float, float] | None = None  # a pure melee weapon thrown (I-L99, G4)
    price_c: int = 0


class Shield(_Named, frozen=True, kw_only=True):
    name: str
    sr: int
    srm: int
    ps: int
    price_c: int = 0


class Cult(_Named, frozen=True, kw_only=True):
    name: str
    harmonisation: str = ""
    gods: tuple[str, ...] = ()


class Spell(_Named, frozen=True, kw_only=True):
    name: str
    magic: str
    min_level: int
    kind: Literal["independant", "primaire", "secondaire"] | None = None
    spell_class: str = ""
    pm_cost: dict[int, int] = {}
    superior_effect_level: int | None = None


class DivinePower(_Named, frozen=True, kw_only=True):
    """A divine power (PD) of a cult: levels 1 to 5 (I-L603); its PF cost per cast level is GM data (Part D)."""

    name: str
    cult: str
    level: int
    pf_cost: dict[int, int] = {}
    description: str = ""


class LockType(_Named, frozen=True, kw_only=True):
    name: str
    minutes: int | None = None
    malus: int | None = None
    max_attempts: int | None = None
    backlash: str = ""
    backlash_pv: int = 0  # PV the backlash takes (a mana discharge), I-L108
    breaks_pick: bool = False  # the backlash breaks the crochet, I-L108


class EventRow(_Entry, frozen=True, kw_only=True):
    low: int
    high: int
    action: str
    d4_target: bool = False
    coma: bool = False


class ZoneRow(_Entry, frozen=True, kw_only=True):
    low: int
    high: int
    zone: str


class KitItem(_Entry, frozen=True, kw_only=True):
    name: str
    qty: int = 1
    note: str = ""


class Consumable(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What a consumable does when used (I-L190-192, I-L249): PV and PM restored (capped at the
    maximum), conditions it ends, the condition it puts on its target."""

    pv: int = 0
    pm: int = 0
    cures: tuple[str, ...] = ()
    applies: str = ""


class Pack(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One content file: the core text or a game-master pack."""

    name: str
    description: str = ""
    example: bool = False
    # Stated by the text (core): never contradicted by a pack.
    coin_ratio: int | None = None
    resale_pct: int | None = None
    piece_price_pct: dict[str, int] = {}
    helmet_sr_malus: int | None = None
    secondaries_by_magic_level: dict[int, int] = {}
    pp_by_combination_size: dict[int, int] = {}
    alc_event_die: dict[str, str] = {}
    alc_events: tuple[EventRow, ...] = ()
    humanoid_zones: tuple[ZoneRow, ...] = ()
    nonhumanoid_zones: tuple[ZoneRow, ...] = ()
    pd_per_level: dict[int, int] = {}
    innate_skills: tuple[str, ...] = ()
    starting_kit: dict[str, tuple[KitItem, ...]] = {}
    # The game master's values (Part D).
    races: tuple[Race, ...] = ()
    classes: tuple[ClassDef, ...] = ()
    heritages: tuple[Heritage, ...] = ()
    skills: tuple[Skill, ...] = ()
    gifts: tuple[Gift, ...] = ()
    counter_effects: tuple[CounterEffect, ...] = ()
    power_die_by_rank: dict[int, int] = {}
    pp_per_magic_level: dict[int, int] = {}
    faith_xp_religious: dict[int, int] = {}
    faith_xp_other: dict[int, int] = {}
    armours: tuple[Armour, ...] = ()
    weapons: tuple[Weapon, ...] = ()
    shields: tuple[Shield, ...] = ()
    cults: tuple[Cult, ...] = ()
    spells: tuple[Spell, ...] = ()
    divine_powers: tuple[DivinePower, ...] = ()
    lock_types: tuple[LockType, ...] = ()
    charges: dict[str, int] = {}
    # item -> equipment slot (money.SLOT_LIMITS) or an uncounted place (gear.UNCOUNTED), I-L29-51
    item_slots: dict[str, str] = {}
    alc_per_drink: dict[str, int] = {}
    # consumable -> its effect: the potions' 20 PV / 40 PM are the text's (I-L190-191), the rest a pack's
    consumables: dict[str, Consumable] = {}


_NAMED = ("races", "classes", "heritages", "skills", "armours", "weapons", "shields", "cults", "spells", "lock_types",
          "divine_powers")
_FACED = ("gifts", "counter_effects")
_TABLES = (
    "piece_price_pct", "secondaries_by_magic_level", "pp_by_combination_size", "alc_event_die",
    "pd_per_level", "power_die_by_rank", "pp_per_magic_level", "faith_xp_religious",
    "faith_xp_other", "charges", "alc_per_drink", "starting_kit", "item_slots", "consumables",
)
_SCALARS = ("coin_ratio", "resale_pct", "helmet_sr_malus")
_ROWS = ("alc_events", "humanoid_zones", "nonhumanoid_zones", "innate_skills")

_decoder = msgspec.json.Decoder(Pack)


_PATH = re.compile(r"`\$\.(\w+)\[(\d+)\]")


def _where(err: Exception, data: Any) -> str:
    """msgspec names the path (`$.races[0].acuities`); add the entry's own name when it has one."""
    text = str(err).rstrip(".")
    m = _PATH.search(text)
    if m and isinstance(data, dict):
        try:
            item = data[m.group(1)][int(m.group(2))]
            label = item.get("name", item.get("face")) if isinstance(item, dict) else None
        except (KeyError, IndexError, TypeError):
            label = None
        if label is not None:
            return f"{m.group(1)} entry {label!r}: {text}"
    return text


def decode_pack(raw: bytes | str, *, source: str) -> Pack:
    """Decode one pack from JSON (``.json``) or TOML (``.toml``) text; ``source`` names the file."""
    data: Any = None
    try:
        if source.endswith(".toml"):
            data = _stringify_keys(tomllib.loads(raw.decode() if isinstance(raw, bytes) else raw))
            return msgspec.convert(data, Pack, strict=False)
        data = msgspec.json.decode(raw)
        return _decoder.decode(raw)
    except RecursionError:
        raise nested_too_deeply(source) from None
    except (msgspec.ValidationError, msgspec.DecodeError, tomllib.TOMLDecodeError) as err:
        raise ContentError(_('Content pack {source} is malformed: {where}.').format(source=source, where=_where(err, data))) from None


def _stringify_keys(data: Any) -> Any:
    if isinstance(data, dict):
        return {str(k): _stringify_keys(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_stringify_keys(v) for v in data]
    return data


def load_pack(path: str | Path) -> Pack:
    """Read and validate one pack file (done once when a campaign opens, never inside a rule): at most
    :data:`cristal_events.packs.MAX_PACK_BYTES`, UTF-8, valid JSON or TOML, not nested too deeply."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_PACK_BYTES:
            raise ContentError(_('{name}: the content pack is {size} bytes; a pack is at most {value} MB.').format(name=p.name, size=size, value=MAX_PACK_BYTES // (1024 * 1024)))
        raw = p.read_bytes()
    except OSError as err:
        raise ContentError(_('Content pack {name} cannot be read: {strerror}.').format(name=p.name, strerror=err.strerror)) from None
    parse_pack(raw, source=p.name, toml=p.name.endswith(".toml"))
    return decode_pack(raw, source=p.name)


def _merge_entry(core: Any, extra: Any, *, source: str, field: str, strict: bool = True) -> Any:
    """``core`` with the fields ``extra`` states: a field the core leaves at its default is filled; one it
    states may not be contradicted (an entry marked ``override`` replaces the core's whole, in :func:`merge`)."""
    changes = {}
    required = _required(core)
    default_entry = type(core)(**required)
    for name in core.__struct_fields__:
        if name == "override":
            continue
        mine, theirs = getattr(core, name), getattr(extra, name)
        default = getattr(default_entry, name)
        stated = strict and name in required  # a required field is always stated by the core
        if theirs == mine or (theirs == default and not stated):
            continue
        if mine != default or stated:
            raise ContentError(
                _('Content pack {source} contradicts the rules text at {field} {entry!r}, field {name!r}; to replace it, mark its entry "override": true (nothing was loaded).').format(source=source, field=field, entry=getattr(core, 'name', getattr(core, 'face', '?')), name=name)
            )
        changes[name] = theirs
    return msgspec.structs.replace(core, **changes)


def overrides_of(current: Pack, pack: Pack, *, source: str) -> dict[str, list[str]]:
    """The entries of ``pack`` marked ``"override": true`` that replace an entry of ``current`` (the
    campaign's content before it), by section; a mark on an entry the campaign does not have is a
    :class:`ContentError` naming it."""
    out: dict[str, list[str]] = {}
    for name, key in [(n, "name") for n in _NAMED] + [(n, "face") for n in _FACED]:
        have = {getattr(e, key) for e in getattr(current, name)}
        for entry in getattr(pack, name):
            if not entry.override:
                continue
            k = getattr(entry, key)
            if k not in have:
                raise ContentError(_('Content pack {source} marks {name} entry {k!r} "override": true, but the campaign has no such entry to override (nothing was loaded).').format(source=source, name=name, k=k))
            out.setdefault(name, []).append(str(k))
    return {name: sorted(v) for name, v in out.items()}


def provenance(packs: list[tuple[str, Pack]]) -> dict[str, list[tuple[str, str, str]]]:
    """Every named or faced entry of the campaign's content by section, as ``(name, sources, overrides)``:
    ``sources`` the core and the packs that stated it ("core + example"), ``overrides`` the sources an
    entry marked ``override`` replaced ("" for none). ``packs``: the loaded packs in log order."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    core = core_pack()
    for name, key in [(n, "name") for n in _NAMED] + [(n, "face") for n in _FACED]:
        rows: dict[str, tuple[list[str], str]] = {str(getattr(e, key)): (["core"], "") for e in getattr(core, name)}
        for pack_name, pack in packs:
            for entry in getattr(pack, name):
                k = str(getattr(entry, key))
                sources, old = rows.get(k, ([], ""))
                if entry.override and sources:
                    rows[k] = ([pack_name], " + ".join(sources))
                else:
                    rows[k] = ([*sources, pack_name], old)
        out[name] = [(k, " + ".join(src), old) for k, (src, old) in sorted(rows.items(), key=lambda r: r[0].casefold())]
    return out


def _required(entry: Any) -> dict[str, Any]:
    """The entry's required fields, to rebuild a default instance for comparison."""
    out = {}
    for f in msgspec.structs.fields(entry):
        if f.required:
            out[f.name] = getattr(entry, f.name)
    return out


def merge(core: Pack, pack: Pack, *, source: str, strict: bool = True) -> Pack:
    """The core with the pack's values added; a pack may fill the text's gaps, never contradict it.

    ``strict=False`` is the replay of a pack loaded before required fields counted as stated (a
    campaign's history is folded as it was accepted); ``content load`` always merges strictly."""
    out: dict[str, Any] = {}
    for name in _SCALARS:
        a, b = getattr(core, name), getattr(pack, name)
        if a is not None and b is not None and a != b:
            raise ContentError(_('Content pack {source} contradicts the rules text at {name!r}.').format(source=source, name=name))
        out[name] = a if a is not None else b
    for name in _TABLES:
        a, b = getattr(core, name), getattr(pack, name)
        for key, value in b.items():
            if key in a and a[key] != value:
                raise ContentError(_('Content pack {source} contradicts the rules text at {name}[{key!r}].').format(source=source, name=name, key=key))
        out[name] = {**a, **b}
    for name in _ROWS:
        a, b = getattr(core, name), getattr(pack, name)
        if a and b and a != b:
            raise ContentError(_('Content pack {source} contradicts the rules text at {name!r}.').format(source=source, name=name))
        out[name] = a or b
    for name, key in [(n, "name") for n in _NAMED] + [(n, "face") for n in _FACED]:
        merged = {getattr(e, key): e for e in getattr(core, name)}
        seen: set[Any] = set()
        for entry in getattr(pack, name):
            k = getattr(entry, key)
            if k in seen:
                raise ContentError(_('Content pack {source} lists {name} entry {k!r} twice.').format(source=source, name=name, k=k))
            seen.add(k)
            if k in merged and not entry.override:
                merged[k] = _merge_entry(merged[k], entry, source=source, field=name, strict=strict)
            else:  # a new entry, or one marked "override": it replaces the earlier entry whole
                if strict and name == "spells" and k in merged and merged[k].min_level != entry.min_level:
                    raise ContentError(
                        _("Content pack {source} changes the minimum level of the spell {k!r} from {min_level} to {min_level2}; a spell's minimum level cannot be changed (I-L217), not even by an override (nothing was loaded).").format(source=source, k=k, min_level=merged[k].min_level, min_level2=entry.min_level))
                merged[k] = entry
        out[name] = tuple(merged.values())
    result = msgspec.structs.replace(core, name=pack.name, description=pack.description, example=pack.example, **out)
    if strict:  # a replay folds the history as it was accepted
        check_rules_shape(result, source=source)
    return result


MAGICLESS_CLASS = "Inquisiteur"  # I-L336: "seule la classe inquisiteur n'en a aucune"
PD_LEVELS = range(1, 6)  # I-L603: divine powers of levels 1 to 5


def check_rules_shape(pack: Pack, *, source: str) -> None:
    """What the text states about the content as a whole, which no pack (override or not) may break:
    only the Inquisiteur has no magic, every other class may choose one (I-L336); a cult has at most
    3/2/2/2/1 divine powers at levels 1-5, 10 in all (I-L603, TX-12)."""
    for cls in pack.classes:
        if cls.name == MAGICLESS_CLASS and cls.has_magic:
            raise ContentError(_('Content pack {source} gives the {name} class magic; only the {name} has none (I-L336) (nothing was loaded).').format(source=source, name=cls.name))
        if cls.name != MAGICLESS_CLASS and not cls.has_magic:
            raise ContentError(_('Content pack {source} makes the {name} class magic-less; only the {MAGICLESS_CLASS} has no magic, no other class is barred from one (I-L336) (nothing was loaded).').format(source=source, name=cls.name, MAGICLESS_CLASS=MAGICLESS_CLASS))
    counts: dict[tuple[str, int], int] = {}
    for pd in pack.divine_powers:
        if pd.level not in PD_LEVELS:
            raise ContentError(_('Content pack {source} gives the divine power {name!r} level {level}; divine powers are of levels 1 to 5 (I-L603) (nothing was loaded).').format(source=source, name=pd.name, level=pd.level))
        counts[(pd.cult, pd.level)] = counts.get((pd.cult, pd.level), 0) + 1
    for (cult, level), n in sorted(counts.items()):
        limit = pack.pd_per_level.get(level)
        if limit is not None and n > limit:
            raise ContentError(_('Content pack {source} gives the {cult} cult {n} divine powers of level {level}; a cult has {limit} at that level (I-L603: 3/2/2/2/1) (nothing was loaded).').format(source=source, cult=cult, n=n, level=level, limit=limit))


@lru_cache(maxsize=1)
def core_pack() -> Pack:
    """What the text states (packaged ``data/core.json``), loaded once."""
    return load_pack(DATA / "core.json")


@lru_cache(maxsize=1)
def example_pack() -> Pack:
    """The EXAMPLE game-master pack used by the sample campaign and the tests (our choices)."""
    return load_pack(DATA / "example_pack.json")


class Content:
    """Merged content with lookups; every missing value raises a :class:`RuleError` naming it."""

    def __init__(self, pack: Pack) -> None:
        self.pack = pack
        self._index = {name: {e.name: e for e in getattr(pack, name)} for name in _NAMED}

    def entry(self, kind: str, name: str) -> Any:
        """A named entry (``kind`` is a Pack field such as ``races``), or :class:`UnknownEntity`."""
        try:
            return self._index[kind][name]
        except KeyError:
            raise UnknownEntity(
                _("The {kind} {name!r} is not in this campaign's content pack.").format(kind=kind[:-1].replace('_', ' '), name=name)
            ) from None

    def missing(self, what: str, gap: str) -> RuleError:
        return RuleError(_("{what} is not set in this campaign's content pack (Part D: {gap}).").format(what=what, gap=gap))

    def table_value(self, table: str, key: int | str, *, what: str, gap: str) -> int:
        value = getattr(self.pack, table).get(key)
        if value is None:
            raise self.missing(what, gap)
        return value

    def power_die(self, rank: int) -> int:
        """Faces of the power die for a Rang de puissance (I-L298, G11)."""
        return self.table_value(
            "power_die_by_rank", rank, what=_('The power die for rank {rank}').format(rank=rank), gap="G11 Rang de puissance → Dé de puissance"
        )

    def pp_for_level(self, level: int) -> int:
        """pp a magic needs to reach ``level`` (I-L211, G9)."""
        return self.table_value(
            "pp_per_magic_level", level, what=_('The pp needed for magic level {level}').format(level=level), gap="G9 pp thresholds"
        )

    def faith_xp(self, level: int, *, religious: bool) -> int:
        """xp to reach faith level ``level`` (I-L575 / I-L584, G18 / G19)."""
        table, gap = ("faith_xp_religious", "G18") if religious else ("faith_xp_other", "G19")
        kind = "religious" if religious else "non-religious"
        return self.table_value(table, level, what=_('The xp cost of faith level {level} for {kind} classes').format(level=level, kind=kind), gap=gap)

    def gift(self, face: int) -> Gift:
        for g in self.pack.gifts:
            if g.face == face:
                return g
        raise self.missing(_('The gift for d8 face {face}').format(face=face), "G14 gift table")

    def counter_effect(self, face: int) -> CounterEffect:
        for c in self.pack.counter_effects:
            if c.face == face:
                return c
        raise self.missing(_('The counter-effect for d20 face {face}').format(face=face), "G10 counter-effect table")

    def skill(self, name: str) -> Skill:
        found = self._index["skills"].get(name)
        if found is None:
            if name in self.pack.innate_skills:
                return Skill(name=name, innate=True)
            raise UnknownEntity(_("The skill {name!r} is not in this campaign's content pack.").format(name=name))
        return found

    def is_innate(self, name: str) -> bool:
        """Savoir skills, Acuités, Escalade, Furtivité and Nage are innate (I-L481)."""
        if name in self.pack.innate_skills:
            return True
        s = self._index["skills"].get(name)
        return bool(s and (s.innate or s.type == "Savoir"))
