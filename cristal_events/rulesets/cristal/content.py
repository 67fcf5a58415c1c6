"""Content packs for Les Lois du Cristal: races, classes, techniques, items and spells as data.

The core pack is the book's own data (seed 000), shipped as JSON under ``data/`` and loaded once
(:func:`load_core`). A campaign may add or override entries with a pack of the same format, a JSON
or TOML file with the sections ``races``, ``classes``, ``techniques``, ``items`` and ``spells``
(each a list of entries), or a folder holding ``races.json`` ... (:func:`load_pack`, :func:`merge`).
Packs are written by hand, so every struct forbids unknown fields, and a malformed entry raises
:class:`ContentError` naming the file, the entry and the field.

A pack may not silently redefine an entry the campaign already has (the book's races, classes,
techniques, items and spells, or an earlier pack's): an entry that replaces one says so with
``"override": true`` (per entry), ``content load`` refuses a redefinition without it in one sentence
naming the entry, and the ``content.pack_loaded`` event records which entries it overrides
(:func:`marked_overrides`, ``characters.decide_pack``).

Example::

    core = load_core()
    campaign = merge(core, load_pack("packs/orques.toml"))
    campaign.race("elfe").level_limit  # 20
"""

import functools
import re
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from cristal_events.errors import ContentError, UnknownEntity
from cristal_events.patterns import pattern, unicode_data  # made when first used

from . import datafiles
from .texts import N_, _

if TYPE_CHECKING:
    from pathlib import Path

FIXED_STATES: tuple[str, ...] = ("FRC", "DEX", "INT", "MAG", "CON", "REF", "OBS", "MEM", "CHAR")
SENSES: tuple[str, ...] = ("Vue", "Ouïe", "Goûter", "Odorat", "Toucher", "Extrasensoriel")
STABLE_STATES: tuple[str, ...] = ("DP", "DM", "ATT", "DMG", "CNC", "PVmax", "PMmax")

# French labels of the race's initial states (L517-L522), for the sex-adjustment notation (L413).
_INITIAL_LABELS = {
    "pv initiaux": "pv_initial",
    "pv régénération": "regen_pct",
    "pm initiaux": "pm_initial",
    "dp initiale": "dp_initial",
    "dm initiale": "dm_initial",
}


class _Entry(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Base of every pack entry: hand-written, so unknown fields are errors."""


class Movement(_Entry, frozen=True, kw_only=True):
    """``Mode (Vitesse de Croisière, Vitesse de Pointe, Attribut Variable)`` (L461), speeds in km/h."""

    mode: str
    cruise_kmh: float
    top_kmh: float
    variable: float | None = None


class RaceWeapon(_Entry, frozen=True, kw_only=True):
    """A line of the race weapon table: Naturelle, Préférer or Peut Utiliser (L524-L527)."""

    kind: Literal["Naturelle", "Préférer", "Peut Utiliser"]
    description: str
    dmg: str | None = None
    name: str = ""  # a natural weapon's name in an attack (--natural), e.g. "Venin"
    it: int | None = None  # the attack's IT; none: 6 s (L1263)
    recovery_s: int | None = None  # seconds before it can be used again, e.g. a snake's venom 3 h (L469)


class Race(_Entry, frozen=True, kw_only=True):
    """A race (L399-L501): initial states, fixed-state bases, senses, level scale.

    ``sex_adjustments`` holds the book's notation ``[PV Initiaux : 10 (Femelle = 8)]`` as
    ``{"Femelle": {"pv_initial": 8}}``; keys are initial-state fields, fixed states or senses.
    ``level_limit`` is None for no limit (Humain, L501). ``technique_factors`` overrides a
    Technique's XP factor for this race (ruling D13).
    """

    name: str
    pv_initial: int
    regen_pct: int
    pm_initial: int
    dp_initial: int
    dm_initial: int
    fixed: dict[str, int]
    senses: dict[str, int]
    specials: list[str] = []
    milieu_vital: list[str] = []
    movement: list[Movement] = []
    weapons: list[RaceWeapon] = []
    height_m: dict[str, float] = {}
    weight_kg: dict[str, float] = {}
    longevity_years: tuple[int, int] | None = None
    level_cost: int
    level_limit: int | None = None
    technique_factors: dict[str, int] = {}
    innate_techniques: dict[str, int] = {}
    sex_adjustments: dict[str, dict[str, int]] = {}
    notes: str = ""

    def __post_init__(self) -> None:
        if sorted(self.fixed) != sorted(FIXED_STATES):
            raise ValueError(f"field 'fixed' must give exactly {', '.join(FIXED_STATES)}")
        unknown = sorted(set(self.senses) - set(SENSES))
        if unknown:
            raise ValueError(f"field 'senses' has an unknown sense '{unknown[0]}'")
        if self.level_cost <= 0:
            raise ValueError("field 'level_cost' must be positive")
        if self.level_limit is not None and self.level_limit < 1:
            raise ValueError("field 'level_limit' must be at least 1")


class ClassColumn(_Entry, frozen=True, kw_only=True):
    """One column of a class table: ``flat`` bonus, ``percent`` bonus, or daily ``points`` (PH, L662)."""

    name: str
    state: str
    kind: Literal["flat", "percent", "points"]


class Pattern(_Entry, frozen=True, kw_only=True):
    """Closed form of a column, used beyond the printed rows: ``step * floor((level + offset) / per)``."""

    step: int
    per: int = 1
    offset: int = 0

    def value(self, level: int) -> int:
        return self.step * ((level + self.offset) // self.per)


class Ability(_Entry, frozen=True, kw_only=True):
    """A special ability paid from a class's daily points (L664-L668), e.g. Voleur's Vol*."""

    name: str
    cost: int
    min_level: int
    pool: str
    description: str = ""


class ClassDef(_Entry, frozen=True, kw_only=True):
    """A class (L628-L741): its bonus table (one row per level, not cumulative, L650)."""

    name: str
    columns: list[ClassColumn]
    table: dict[str, list[int]]
    patterns: dict[str, Pattern]
    prerequisites: dict[str, int] = {}
    abilities: list[Ability] = []
    description: str = ""

    def __post_init__(self) -> None:
        names = [c.name for c in self.columns]
        for col in names:
            if col not in self.table:
                raise ValueError(f"field 'table' lacks the column '{col}'")
            if col not in self.patterns:
                raise ValueError(f"field 'patterns' lacks the column '{col}'")
        lengths = {len(v) for v in self.table.values()}
        if len(lengths) > 1:
            raise ValueError("field 'table' columns must all have the same number of levels")
        extra = sorted(set(self.table) - set(names))
        if extra:
            raise ValueError(f"field 'table' has a column '{extra[0]}' that 'columns' does not declare")


class Restriction(_Entry, frozen=True, kw_only=True):
    """Who may learn a Technique (L757): a race among ``races`` and/or class levels."""

    races: list[str] = []
    classes: dict[str, int] = {}


class Technique(_Entry, frozen=True, kw_only=True):
    """A Technique (L743-L799): XP factor, optional restriction, adjustment formula like ``OBS / 3``."""

    name: str
    factor: int
    race_factors: dict[str, int] = {}
    restriction: Restriction | None = None
    adjustment: str = ""
    capabilities: list[str] = []
    limits: dict[str, list[int | None]] = {}
    description: str = ""

    def __post_init__(self) -> None:
        if self.factor <= 0:
            raise ValueError("field 'factor' must be positive")
        parse_adjustment(self.adjustment)


class PotionSpec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The spell a potion holds (L1169-L1184): its name, PM per effect (set at creation, L1177), total PM
    (at most 15), its trigger, and the in-game day it was made (for its fading, L1182)."""

    spell: str
    spends: dict[str, int] = {}
    pm: int = 0
    trigger: Literal["ingestion", "contact", "ouverture"] = "ingestion"
    brewed_day: int | None = None


class ItemTemplate(_Entry, frozen=True, kw_only=True):
    """An item's sheet line (L828-L879). ``modifiers`` is the Bonus/Handicap per state (signed).

    ``dm`` is the bonus given to the wearer; a magic item's own DM is its ``mag`` (L851, D7).
    ``frc_required`` is the weapon's "force nécessaire" for DMG (L302, D2). ``kind`` marks
    projectiles, propulsors (with ``range_m``) and thrown weapons (range FRC x 2, L1344).
    """

    name: str
    category: Literal[
        "Principale", "Projectiles", "Poisons", "Objets de Valeurs", "Cristal Magique", "Autres"
    ] = "Principale"
    qty: int = 1
    att: int = 0
    dmg: str = "0"
    mag: int = 0
    special: str = ""
    dp: int = 0
    dm: int = 0
    modifiers: dict[str, int] = {}
    weight_kg: float = 0.0
    eq: bool = False
    it: int | None = None
    frc_required: int = 0
    kind: Literal["", "projectile", "propulsor", "thrown"] = ""
    range_m: int | None = None
    price_po: int | None = None
    notes: str = ""
    crystal_pm: int | None = None  # a Cristal Magique's PM max (L919); its price and size band L1083-L1089
    activation: Literal["automatic", "manual"] = "automatic"  # a magic item's kind (L1143-L1145)
    potion: PotionSpec | None = None  # a potion carried as an object (L1179-L1184)

    def __post_init__(self) -> None:
        if self.crystal_pm is not None and self.crystal_pm < 0:
            raise ValueError("field 'crystal_pm' must not be negative")
        if self.qty < 0:
            raise ValueError("field 'qty' must not be negative")
        if self.weight_kg < 0:
            raise ValueError("field 'weight_kg' must not be negative")
        if self.kind == "propulsor" and self.range_m is None:
            raise ValueError("field 'range_m' is required for a propulsor")
        parse_amount(self.dmg, allow_sum=True)


class VariableEffect(_Entry, frozen=True, kw_only=True):
    """A row of a spell's Effet Variable table (L997-L1014): Nom, Échelle, Unité, Réduction."""

    name: str
    scale: str
    unit: str
    reduction: int = 0

    def __post_init__(self) -> None:
        parse_scale(self.scale)


class Predefined(_Entry, frozen=True, kw_only=True):
    """A spell's Prédéfini description (L976): fixed allocation and total PM."""

    description: str
    allocation: dict[str, int]


class SpellDef(_Entry, frozen=True, kw_only=True):
    """A spell (L1099-L1167). ``time`` is seconds, ``INSTANTANÉ`` or ``SIMULTANÉ`` (L964-L967);
    None when the book does not print it. ``combustion`` None means the rule CNC / 2 (L1271).
    ``inferred`` lists the fields the book does not print (see ``notes``).
    """

    name: str
    learning_cost: int | None = None
    cnc: int
    pm_base: int
    time: int | Literal["INSTANTANÉ", "SIMULTANÉ"] | None = None
    time_text: str = ""
    combustion: int | None = None
    effects: list[VariableEffect] = []
    pm_max: int | None = None
    predefined: Predefined | None = None
    description: str = ""
    inferred: list[str] = []
    notes: str = ""


class Content(msgspec.Struct, frozen=True, kw_only=True):
    """Every entry of a ruleset by its book name. Look-ups are case-insensitive."""

    races: dict[str, Race] = {}
    classes: dict[str, ClassDef] = {}
    techniques: dict[str, Technique] = {}
    items: dict[str, ItemTemplate] = {}
    spells: dict[str, SpellDef] = {}

    def race(self, name: str) -> Race:
        return _lookup(self.races, name, "race")

    def class_def(self, name: str) -> ClassDef:
        return _lookup(self.classes, name, "class")

    def technique(self, name: str) -> Technique:
        return _lookup(self.techniques, name, "technique")

    def item(self, name: str) -> ItemTemplate:
        return _lookup(self.items, name, "item")

    def spell(self, name: str) -> SpellDef:
        return _lookup(self.spells, name, "spell")


def name_key(name: str) -> str:
    """How every name a user types is matched (race, class, item, spell, ability, a carried item):
    case, accents and runs of spaces aside ("epee  longue" is "Épée longue")."""
    folded = " ".join(name.split()).casefold()
    if folded.isascii():  # NFKD leaves ASCII as it is, with no accent to drop: no unicodedata to import
        return folded
    ud = unicode_data()
    folded = ud.normalize("NFKD", folded)
    return "".join(ch for ch in folded if not ud.combining(ch))


def did_you_mean(name: str, names: Any) -> str:
    """" Did you mean 'X'?" for the known name closest to ``name``, or "" when none is close."""
    by_key = {name_key(n): n for n in names}
    import difflib  # only when a name was not found: a one-shot command's start-up does not pay for it

    close = difflib.get_close_matches(name_key(name), list(by_key), n=1, cutoff=0.6)
    return _(" Did you mean '{name}'?").format(name=by_key[close[0]]) if close else ""


def find_named(entries: Any, name: str, key: Any = lambda e: e) -> Any:
    """The entry whose name (``key(entry)``) matches ``name`` the way :func:`name_key` says, or None."""
    wanted = name_key(name)
    return next((e for e in entries if name_key(key(e)) == wanted), None)


#: a name the content does not hold, per kind (the hint is :func:`did_you_mean`'s, or empty)
_UNKNOWN = {
    "race": N_("Unknown race '{name}';{hint} known races: {known}."),
    "class": N_("Unknown class '{name}';{hint} known classes: {known}."),
    "technique": N_("Unknown technique '{name}';{hint} known techniques: {known}."),
    "item": N_("Unknown item '{name}';{hint} known items: {known}."),
    "spell": N_("Unknown spell '{name}';{hint} known spells: {known}."),
}


def _lookup(table: dict[str, Any], name: str, noun: str) -> Any:
    found = find_named(table, name)
    if found is not None:
        return table[found]
    known = ", ".join(sorted(table, key=str.casefold)) or _("none")
    hint = did_you_mean(name, table)
    raise UnknownEntity(_(_UNKNOWN[noun]).format(name=name, hint=hint, known=known))


# ---------------------------------------------------------------------------------------------
# Small grammars used by the data: adjustment formulas, dice amounts, effect scales.

_ADJ_TERM = pattern(r"^\s*([+-]?)\s*([A-Z]+|\d+)\s*(?:([*/])\s*(\d+))?\s*")


def parse_adjustment(text: str) -> tuple[tuple[int, str, str, int], ...]:
    """Parse a Technique adjustment like ``OBS / 3`` or ``INT / 2`` into signed terms.

    Each term is ``(sign, state-or-number, operator, operand)``; the empty text means no
    adjustment. Raises ValueError on anything else.
    """
    terms: list[tuple[int, str, str, int]] = []
    rest = text.strip()
    while rest:
        m = _ADJ_TERM.match(rest)
        if not m or (not m.group(2).isdigit() and m.group(2) not in FIXED_STATES):
            raise ValueError(f"field 'adjustment' is not a formula on fixed states: '{text}'")
        if m.group(3) == "/" and int(m.group(4)) == 0:
            raise ValueError("field 'adjustment' divides by zero")
        if terms and not m.group(1):
            raise ValueError(f"field 'adjustment' is not a formula on fixed states: '{text}'")
        terms.append((-1 if m.group(1) == "-" else 1, m.group(2), m.group(3) or "", int(m.group(4) or 1)))
        rest = rest[m.end():]
    return tuple(terms)


_AMOUNT = pattern(r"^\(?\s*(\d+)(?:d(\d+))?\s*\)?$")


@functools.lru_cache(maxsize=4096)
def parse_amount(text: str, *, allow_sum: bool = False) -> tuple[int, int | None]:
    """``"1d6"`` -> (1, 6); ``"5"`` -> (5, None). With ``allow_sum`` a DMG like ``2d6+2`` is accepted
    (validated term by term; the first term is returned).

    Cached: every item of every inventory is validated again when a snapshot of the state is decoded
    (``ItemTemplate.__post_init__``), and a long campaign's inventories repeat a few DMG texts."""
    parts = re.split(r"\s*[+-]\s*", text.strip()) if allow_sum else [text.strip()]
    parsed = []
    for part in parts:
        m = _AMOUNT.match(part)
        if not m:
            raise ValueError(f"'{text}' is not a dice amount like 1d6, 2d6+2 or 5")
        parsed.append((int(m.group(1)), int(m.group(2)) if m.group(2) else None))
    return parsed[0]


@functools.lru_cache(maxsize=4096)
def parse_scale(text: str) -> tuple[int, int | None, int]:
    """An Échelle (L1006): ``5`` -> (5, None, 1); ``1d6`` -> (1, 6, 1); ``1/4`` -> (1, None, 4);
    ``(1d6)/3`` or ``1d6/2`` -> (1, 6, k). Returns (count, faces or None, PM per step)."""
    body, _sep, per = text.strip().strip("[]").partition("/")
    try:
        count, faces = parse_amount(body)
        divisor = int(per) if per.strip() else 1
    except ValueError:
        raise ValueError(f"field 'scale' is not an Échelle like 5, 1d6, 1/4 or (1d6)/3: '{text}'") from None
    if divisor <= 0:
        raise ValueError("field 'scale' divides by zero")
    return count, faces, divisor


def scaled_amount(scale: str, pm: int) -> str:
    """The effect produced by ``pm`` PM on an Échelle (L1006), as a dice expression or a number.

    Only whole steps count (PM not a multiple of the denominator are wasted, ruling in
    docs/rulings.md): ``scaled_amount("5", 3) == "15"``, ``scaled_amount("1d6/2", 8) == "4d6"``,
    ``scaled_amount("1/4", 4) == "1"``.
    """
    count, faces, per = parse_scale(scale)
    steps = max(pm, 0) // per
    if faces is None:
        return str(count * steps)
    return f"{count * steps}d{faces}" if steps else "0"


def parse_sex_adjustment(text: str) -> tuple[str, int, dict[str, int]]:
    """The book's notation ``[PV Initiaux : 10 (Femelle = 8)]`` (L413) -> ("pv_initial", 10, {"Femelle": 8}).

    The label is an initial state (PV Initiaux, PM Initiaux, DP Initiale, DM Initiale,
    PV régénération), a fixed state (FRC ...) or a sense (Vue ...).
    """
    m = re.fullmatch(r"\s*\[\s*([^:\]]+?)\s*:\s*(-?\d+)\s*((?:\([^)]*\)\s*)*)\]\s*", text)
    if not m:
        raise ContentError(_("'{text}' is not written like [PV Initiaux : 10 (Femelle = 8)].").format(text=text))
    label = m.group(1)
    key = _INITIAL_LABELS.get(label.casefold()) or next(
        (s for s in FIXED_STATES + SENSES if s.casefold() == label.casefold()), None
    )
    if key is None:
        raise ContentError(_("'{label}' is not an initial state, a fixed state or a sense.").format(label=label))
    overrides = {
        sex.strip(): int(val)
        for sex, val in re.findall(r"\(\s*([^=)]+?)\s*=\s*(-?\d+)\s*\)", m.group(3))
    }
    return key, int(m.group(2)), overrides


def race_for_sex(race: Race, sex: str | None) -> Race:
    """The race as it applies to one sex: its ``sex_adjustments`` folded in (L413, TV-06)."""
    if not sex:
        return race
    adj = next((v for k, v in race.sex_adjustments.items() if k.casefold() == sex.casefold()), None)
    if not adj:
        return race
    fixed = dict(race.fixed)
    senses = dict(race.senses)
    fields: dict[str, int] = {}
    for key, value in adj.items():
        if key in FIXED_STATES:
            fixed[key] = value
        elif key in SENSES:
            senses[key] = value
        else:
            fields[key] = value
    return msgspec.structs.replace(race, fixed=fixed, senses=senses, **fields)


# ---------------------------------------------------------------------------------------------
# Loading and merging.

_SECTIONS: dict[str, tuple[str, type]] = {
    "races": ("race", Race),
    "classes": ("class", ClassDef),
    "techniques": ("technique", Technique),
    "items": ("item", ItemTemplate),
    "spells": ("spell", SpellDef),
}

_TYPE_WORDS = {
    "int": "an integer",
    "str": "a string",
    "bool": "true or false",
    "float": "a number",
    "array": "a list",
    "object": "a table",
    "null": "empty",
}


def _field_message(err: msgspec.ValidationError) -> str:
    text = str(err)
    path_match = re.search(r" - at `\$(.*)`$", text)
    path = (path_match.group(1) if path_match else "").lstrip(".")
    text = text[: path_match.start()] if path_match else text
    if m := re.match(r"Object contains unknown field `(.+)`", text):
        where = f" in '{path}'" if path else ""
        return f"unknown field '{m.group(1)}'{where}"
    if m := re.match(r"Object missing required field `(.+)`", text):
        full = f"{path}.{m.group(1)}" if path else m.group(1)
        return f"field '{full}' is missing"
    if m := re.match(r"Expected `([^`]+)`, got `([^`]+)`", text):
        wanted = " or ".join(_TYPE_WORDS.get(t.strip(), t.strip()) for t in m.group(1).split("|"))
        return f"field '{path}' must be {wanted}"
    if text.startswith("field '"):
        return text
    return f"field '{path}': {text}" if path else text


def _decode_section(source: str, section: str, raw: Any) -> dict[str, Any]:
    noun, kind = _SECTIONS[section]
    if not isinstance(raw, list):
        raise ContentError(_("{source}: section '{section}' must be a list of {noun} entries.").format(source=source, section=section, noun=noun))
    out: dict[str, Any] = {}
    for index, entry in enumerate(raw):
        label = entry.get("name") if isinstance(entry, dict) else None
        label = f"'{label}'" if isinstance(label, str) else f"#{index + 1}"
        if not isinstance(entry, dict):
            raise ContentError(_("{source}: {noun} {label}: must be a table of fields.").format(source=source, noun=noun, label=label))
        if OVERRIDE in entry:
            if not isinstance(entry[OVERRIDE], bool):
                raise ContentError(_("{source}: {noun} {label}: field '{override}' must be true or false.").format(source=source, noun=noun, label=label, override=OVERRIDE))
            entry = {k: v for k, v in entry.items() if k != OVERRIDE}
        try:
            value: Any = msgspec.convert(entry, kind)  # the section's own struct class (all have a name)
        except msgspec.ValidationError as err:
            raise ContentError(_("{source}: {noun} {label}: {field_message}.").format(source=source, noun=noun, label=label, field_message=_field_message(err))) from None
        if any(k.casefold() == value.name.casefold() for k in out):
            raise ContentError(_("{source}: {noun} {label} is defined twice.").format(source=source, noun=noun, label=label))
        out[value.name] = value
    return out


def content_from_sections(source: str, data: Any, *, only: str | None = None) -> Content:
    if only is not None:
        return Content(**{only: _decode_section(source, only, data)})
    if not isinstance(data, dict):
        raise ContentError(_("{source}: a pack must be a table with sections {sections}.").format(source=source, sections=', '.join(_SECTIONS)))
    unknown = sorted(set(data) - set(_SECTIONS))
    if unknown:
        raise ContentError(
            _("{source}: unknown section '{unknown}'; sections are {sections}.").format(source=source, unknown=unknown[0], sections=', '.join(_SECTIONS))
        )
    return Content(**{s: _decode_section(source, s, data[s]) for s in _SECTIONS if s in data})


#: the key of a pack entry that replaces an entry the campaign already has
OVERRIDE = "override"


def marked_overrides(data: Any) -> dict[str, set[str]]:
    """The (case-folded) names of the entries a raw pack marks ``"override": true``, by section."""
    out: dict[str, set[str]] = {s: set() for s in _SECTIONS}
    if isinstance(data, dict):
        for section in _SECTIONS:
            entries = data.get(section)
            for entry in entries if isinstance(entries, list) else ():
                if isinstance(entry, dict) and entry.get(OVERRIDE) is True and isinstance(entry.get("name"), str):
                    out[section].add(entry["name"].casefold())
    return out


def _names(data: Any, section: str) -> set[str]:
    entries = data.get(section) if isinstance(data, dict) else None
    return {e["name"].casefold() for e in entries if isinstance(e, dict) and isinstance(e.get("name"), str)} \
        if isinstance(entries, list) else set()


def provenance(packs: list[tuple[str, Any]]) -> dict[str, list[tuple[str, str, str]]]:
    """Every entry of the campaign's content by section, as ``(name, source, overrides)``: ``source`` is
    ``"core"`` or the pack that defined it last, ``overrides`` the source it replaced (``""`` for none).
    ``packs`` are the loaded packs' ``(name, raw data)``, in log order."""
    core = load_core()
    out: dict[str, list[tuple[str, str, str]]] = {}
    for section in _SECTIONS:
        entries = {k.casefold(): (k, "core", "") for k in getattr(core, section)}
        for pack_name, data in packs:
            raw = data.get(section) if isinstance(data, dict) else None
            for entry in raw if isinstance(raw, list) else ():
                if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                    key = entry["name"].casefold()
                    before = entries.get(key)
                    entries[key] = (entry["name"], pack_name, before[1] if before else "")
        out[section] = sorted(entries.values(), key=lambda e: e[0].casefold())
    return out


def overrides_of(current: Content, added: Content, data: Any, *, source: str,
                 packs: list[tuple[str, Any]]) -> dict[str, list[str]]:
    """The entries of the pack ``added`` (raw ``data``) that replace an entry of ``current`` (the campaign's
    content before it), by section. A replacement not marked ``"override": true``, or a mark with nothing
    to replace, is a :class:`ContentError` naming the entry. ``packs``: the packs loaded before, in order."""
    marked = marked_overrides(data)
    out: dict[str, list[str]] = {}
    for section, (noun, _plural) in _SECTIONS.items():
        have = {k.casefold(): k for k in getattr(current, section)}
        for name in getattr(added, section):
            key = name.casefold()
            if key in have:
                if key not in marked[section]:
                    origin = next((f"the pack '{p}'" for p, d in reversed(packs) if key in _names(d, section)),
                                  "the core rules")
                    raise ContentError(
                        _('Content pack {source} redefines the {noun} \'{have}\' of {origin}; to replace it, mark its entry "{override}": true (nothing was loaded).').format(source=source, noun=noun, have=have[key], origin=origin, override=OVERRIDE))
                out.setdefault(section, []).append(name)
            elif key in marked[section]:
                raise ContentError(_('Content pack {source} marks the {noun} \'{name}\' "{override}": true, but the campaign has no {noun} \'{name}\' to override (nothing was loaded).').format(source=source, noun=noun, name=name, override=OVERRIDE))
    return {section: sorted(names, key=str.casefold) for section, names in out.items()}


def parse_file(path: "str | Path") -> Any:
    """A pack file parsed (size, UTF-8, syntax and nesting checked by :func:`cristal_events.packs.read_pack`)."""
    from cristal_events.packs import read_pack  # its TOML parser only when a pack is loaded

    return read_pack(path)


def load_pack(path: "str | Path") -> Content:
    """Read a content pack: one JSON/TOML file with sections, or a folder of ``races.json`` ... files."""
    from pathlib import Path  # a pack is loaded: the core's data files are read with os.path (datafiles)

    p = Path(path)
    if p.is_dir():
        merged = Content()
        for section in _SECTIONS:
            for suffix in (".json", ".toml"):
                f = p / f"{section}{suffix}"
                if f.exists():
                    merged = merge(merged, content_from_sections(f.name, parse_file(f), only=section))
        return merged
    return content_from_sections(p.name, parse_file(p))


def merge(base: Content, pack: Content) -> Content:
    """``base`` with every entry of ``pack`` added, or replacing the entry of the same name
    (case-insensitive). Cross references (prerequisites, restrictions, race factors) are checked."""
    sections = {}
    for section in _SECTIONS:
        merged = dict(getattr(base, section))
        for name, entry in getattr(pack, section).items():
            for old in [k for k in merged if k.casefold() == name.casefold()]:
                del merged[old]
            merged[name] = entry
        sections[section] = merged
    result = Content(**sections)
    _check_references(result)
    return result


def _check_references(c: Content) -> None:
    classes = {k.casefold() for k in c.classes}
    techniques = {k.casefold() for k in c.techniques}
    for cls in c.classes.values():
        for req in cls.prerequisites:
            if req.casefold() not in classes:
                raise ContentError(_("class '{cls}': prerequisite class '{req}' is unknown.").format(cls=cls.name, req=req))
    for tech in c.techniques.values():
        if tech.restriction:
            for cname in tech.restriction.classes:
                if cname.casefold() not in classes:
                    raise ContentError(_("technique '{tech}': restriction class '{cname}' is unknown.").format(tech=tech.name, cname=cname))
    for race in c.races.values():
        for tname in list(race.technique_factors) + list(race.innate_techniques):
            if tname.casefold() not in techniques:
                raise ContentError(_("race '{race}': technique '{tname}' is unknown.").format(race=race.name, tname=tname))


@functools.cache
def load_core() -> Content:
    """The book's own content (seed 000), decoded from the packaged JSON once and cached."""
    sections = {}
    for section in _SECTIONS:
        raw = msgspec.json.decode(datafiles.read(f"{section}.json"))  # msgspec is loaded already: no json module
        sections[section] = _decode_section(f"{section}.json", section, raw)
    content = Content(**sections)
    _check_references(content)
    return content
