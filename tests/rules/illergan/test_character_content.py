"""Character creation from the content pack, and the pack loader's errors."""

import json

import pytest

from cristal_events.dice import Dice
from cristal_events.errors import ContentError, RuleError, UnknownEntity
from cristal_events.rulesets.illergan import character
from cristal_events.rulesets.illergan.character import Choices
from cristal_events.rulesets.illergan.content import Content, core_pack, decode_pack, load_pack, merge


def choices(**kw):
    base = dict(name="Aelis", race="Elfe", class_name="Mage", heritage="Apprenti d'académie", magics=("Yarlysy",))
    base.update(kw)
    return Choices(**base)


def test_mage_creation(content):  # I-L323-371
    c = character.create(content, choices(alc_min=-2), fo=3, gift_face=2)
    assert c.acuities == {"visual": 60, "auditory": 50, "olfactory": 20}
    assert c.skills["Acuité visuelle"].pct == 60 and c.skills["Nage"].pct == 0
    assert c.skills["Vivacité elfique"].fixed  # rank 0 race skill, ticked (A42)
    assert c.magics == {"Yarlysy": 1}  # I-L213
    assert c.incantation_types == ("orale", "canalisateur")
    assert (c.destiny_points, c.heritage_xp, c.xp_total, c.max_charges, c.alc_min) == (2, 400, 0, 13, -2)
    assert (c.gift, c.faith_level, c.pf_per_day) == ("Œil de lynx", None, 0)


def test_gift_rolled_with_dice(content):  # I-L380
    c = character.create(content, choices(), fo=0, dice=Dice.entered([8]))
    assert c.gift == "Mémoire parfaite" and c.gift_roll.faces == (8,)


@pytest.mark.parametrize("cls, cult, level, pf", [("Prêtre", "Vikasar", 1, 8), ("Paladin", "Dieu ailé", 1, 2),
                                                  ("Guerrier", "Ancêtres", 0, 0)],
                         ids=["pretre", "paladin", "non-religious"])
def test_faith_at_creation(content, cls, cult, level, pf):  # I-L569, I-L578, I-L594-595
    magics = {"Guerrier": (), "Prêtre": ("Yarlysy",), "Paladin": ("Yarlysy",)}[cls]
    c = character.create(content, choices(class_name=cls, cult=cult, god="Solarë", magics=magics), fo=2, gift_face=1)
    assert (c.faith_level, c.pf_per_day) == (level, pf)


def test_religious_class_needs_cult(content):
    with pytest.raises(RuleError, match="choose a cult"):
        character.create(content, choices(class_name="Prêtre"), fo=2, gift_face=1)


def test_paladin_needs_god(content):  # I-L333
    with pytest.raises(RuleError, match="god"):
        character.create(content, choices(class_name="Paladin", cult="Vikasar"), fo=2, gift_face=1)


def test_inquisitor_has_no_magic(content):  # I-L336
    with pytest.raises(RuleError, match="no magic"):
        character.create(content, choices(class_name="Inquisiteur", cult="Vikasar"), fo=2, gift_face=1)
    c = character.create(content, choices(class_name="Inquisiteur", cult="Vikasar", magics=()), fo=2, gift_face=1)
    assert (c.incantation_types, c.magics) == ((), {})


@pytest.mark.parametrize("traits, ok", [(("Prudent", "Honnête"), True), (("Téméraire", "Prudent"), False),
                                        (("Cruel", "Agressif", "Positif"), False), (("Lâche",), False)],
                         ids=["ok", "contradictory", "three", "unknown"])
def test_traits(traits, ok):  # I-L386-398
    if ok:
        character.check_traits(traits)
    else:
        with pytest.raises(RuleError):
            character.check_traits(traits)


def test_languages_at_most_two(content):  # I-L382
    with pytest.raises(RuleError, match="2 languages"):
        character.create(content, choices(languages=("a", "b", "c")), fo=0, gift_face=1)


def test_heritage_constraints(content):  # I-L352, I-L374
    assert character.heritage_leftover(content, "Enfant des rues", {"characteristics": 200, "Furtivité": 150}) == 50
    with pytest.raises(RuleError, match="at most 200"):
        character.heritage_leftover(content, "Enfant des rues", {"characteristics": 250})
    with pytest.raises(RuleError, match="400 xp"):
        character.heritage_leftover(content, "Enfant des rues", {"Furtivité": 300, "Parade": 150})


# ---- missing GM values raise a RuleError naming them
def test_core_alone_has_no_races(core):
    with pytest.raises(UnknownEntity, match="race 'Elfe' is not in this campaign's content pack"):
        character.create(core, choices(), fo=0, gift_face=1)


def test_missing_gift_names_gap(core):
    with pytest.raises(RuleError, match=r"The gift for d8 face 3 is not set in this campaign's content pack \(Part D: G14"):
        core.gift(3)


def test_missing_class_costs(core):
    pack = decode_pack(json.dumps({"name": "p", "races": [{"name": "Elfe", "acuities": {}}],
                                   "heritages": [{"name": "H"}]}), source="p.json")
    c = Content(merge(core_pack(), pack, source="p.json"))
    with pytest.raises(RuleError, match="G13"):
        character.create(c, choices(class_name="Prêtre", heritage="H", cult="Vikasar"), fo=0, gift_face=1)


def test_missing_faith_costs(core):
    with pytest.raises(RuleError, match=r"faith level 2 for religious classes is not set .*G18"):
        core.faith_xp(2, religious=True)


# ---- pack loading
def test_unknown_field_names_file_entry_field():
    raw = json.dumps({"name": "p", "races": [{"name": "Orc", "acuities": {"visual": 10}, "strength": 4}]})
    with pytest.raises(ContentError, match=r"Content pack gm\.json is malformed: races entry 'Orc': .*strength.*\$\.races\[0\]"):
        decode_pack(raw, source="gm.json")


def test_wrong_type_names_path():
    raw = json.dumps({"name": "p", "weapons": [{"name": "Arc", "grip": "three"}]})
    with pytest.raises(ContentError, match=r"weapons entry 'Arc'.*\$\.weapons\[0\]\.grip"):
        decode_pack(raw, source="gm.json")


def test_toml_pack(tmp_path):
    p = tmp_path / "gm.toml"
    p.write_text('name = "toml pack"\n[power_die_by_rank]\n1 = 4\n2 = 6\n\n[[gifts]]\nface = 1\nname = "Don"\n', encoding="utf-8")
    c = Content(merge(core_pack(), load_pack(p), source=p.name))
    assert (c.power_die(2), c.gift(1).name) == (6, "Don")


def test_unreadable_pack(tmp_path):
    with pytest.raises(ContentError, match="missing.json cannot be read"):
        load_pack(tmp_path / "missing.json")


def test_pack_cannot_contradict_the_text():
    bad = decode_pack(json.dumps({"name": "p", "coin_ratio": 20}), source="bad.json")
    with pytest.raises(ContentError, match="bad.json contradicts the rules text at 'coin_ratio'"):
        merge(core_pack(), bad, source="bad.json")
    bad2 = decode_pack(json.dumps({"name": "p", "classes": [{"name": "Inquisiteur", "religious": False, "has_magic": True,
                                                             "incantation_types": ["orale"]}]}), source="bad2.json")
    merged = merge(core_pack(), bad2, source="bad2.json")  # defaults never override what the text states
    inq = next(c for c in merged.classes if c.name == "Inquisiteur")
    assert (inq.religious, inq.has_magic, inq.incantation_types) == (True, False, ("orale",))
    bad3 = decode_pack(json.dumps({"name": "p", "secondaries_by_magic_level": {"6": 5}}), source="bad3.json")
    with pytest.raises(ContentError, match=r"secondaries_by_magic_level\[6\]"):
        merge(core_pack(), bad3, source="bad3.json")


def test_duplicate_entries_refused():
    dup = decode_pack(json.dumps({"name": "p", "races": [{"name": "A"}, {"name": "A"}]}), source="dup.json")
    with pytest.raises(ContentError, match="lists races entry 'A' twice"):
        merge(core_pack(), dup, source="dup.json")


def test_example_pack_is_labelled(content):
    assert content.pack.example is True and "EXAMPLE" in content.pack.description


def test_core_states_only_text_values(core):
    assert core.pack.power_die_by_rank == {} and core.pack.gifts == () and core.pack.races == ()
    assert core.pack.counter_effects == () and core.pack.pp_per_magic_level == {}
