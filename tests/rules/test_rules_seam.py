"""The rules' seam (issue 15 items 1, 2): the envelope is the kernel's, the parts' folds get the typed
event, the Lois du Cristal state is one module below the parts, and combat reads typed numbers built
once per decision."""

from __future__ import annotations

import ast
from pathlib import Path

import msgspec
import pytest

import cristal_events
from cristal_events import init_campaign, records, store
from cristal_events.errors import RuleError
from cristal_events.events import NoteRecorded
from cristal_events.ruleset import ComposedRuleset
from cristal_events.rulesets.cristal import characters as C
from cristal_events.rulesets.cristal import fights as F
from cristal_events.rulesets.cristal import progression, state
from cristal_events.rulesets.cristal.content import load_core, race_for_sex
from cristal_events.rulesets.cristal.fights import common
from cristal_events.rulesets.cristal.ruleset import RULESET, CristalState
from cristal_events.rulesets.cristal.stable import stable_states

RULESETS = Path(cristal_events.__file__).parent / "rulesets"
#: what a rule module may not import: the store, the service, the CLI, the read models (by either name:
#: ``cristal_events.projections`` installed, ``projections`` in the checkout), the jobs
ABOVE = ("cristal_events.store", "cristal_events.service", "cristal_events.cli", "cristal_events.projections",
         "projections", "cristal_events.jobs")


def _imports(path: Path) -> set[str]:
    """The absolute names of the modules ``path`` imports (relative imports resolved)."""
    package = ".".join(path.relative_to(RULESETS.parent.parent).with_suffix("").parts[:-1])
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            out.add(base)
            out.update(f"{base}.{alias.name}" for alias in node.names)
    return out


def test_the_envelope_is_the_kernels_and_the_store_hands_the_same_class_on():
    assert store.RecordedEvent is records.RecordedEvent is cristal_events.RecordedEvent
    assert _imports(Path(records.__file__)) <= {"msgspec", "events", "cristal_events.events",
                                                "cristal_events.events.Event"}


def test_no_rule_module_imports_the_store_the_service_the_cli_or_the_projections():
    # the rulesets' click files (cli*.py) are the CLI's and move under cristal_events/cli/
    rules = [p for p in RULESETS.rglob("*.py") if not p.name.startswith("cli")]
    assert len(rules) > 40
    climbing = {str(p.relative_to(RULESETS)): sorted(n for n in _imports(p) if n.startswith(ABOVE))
                for p in rules}
    assert {k: v for k, v in climbing.items() if v} == {}


def test_a_parts_evolver_receives_the_typed_event_and_its_envelope():
    seen = []

    def fold(s, event, rec):
        seen.append((event, rec))
        return s + 1

    part = type("Part", (), {"EVENTS": (NoteRecorded,), "DECIDERS": {}, "EVOLVERS": {NoteRecorded: fold},
                             "SUMMARIES": {}, "COMPENSATORS": {}})
    ruleset = type("Notes", (ComposedRuleset,), {"parts": (part,), "initial_state": lambda self, h: 0})()
    rec = records.RecordedEvent(7, "e", "notes", 1, "note.recorded", 1, "{}", "", 2, "GM", None, None, "", "",
                                NoteRecorded(text="a note"))
    assert ruleset.evolve(0, rec) == 1 and seen == [(rec.event, rec)]
    assert ruleset.evolver(NoteRecorded)(1, rec) == 2 and seen[-1] == (rec.event, rec)
    assert ruleset.evolver(int)(5, rec) == 5  # an event the parts do not fold leaves the state as it is
    assert ruleset.typed_evolver(NoteRecorded) is fold  # the service's fold calls the part's function itself
    assert ruleset.typed_evolver(int)(5, rec.event, rec) == 5


def test_the_cristal_state_is_one_module_below_the_parts_with_an_unchanged_snapshot_shape():
    assert RULESET.state_type is CristalState is state.CristalState
    assert C.Character is state.Character and F.Combat is state.Combat and F.Fighter is state.Fighter
    below = {n for n in _imports(Path(state.__file__)) if n.startswith("cristal_events.rulesets.cristal.")}
    assert not any(n.startswith(("cristal_events.rulesets.cristal.characters",
                                 "cristal_events.rulesets.cristal.fights")) for n in below), below
    # the msgpack shape a snapshot stores: a map of the fields, the same names as before the move
    s = CristalState(characters={"t": state.Character(id="t", name="T", race="Humain")},
                     combats={"d": state.Combat(name="d", fighters={"t": state.Fighter(id="t")})})
    raw = msgspec.msgpack.decode(msgspec.msgpack.encode(s))
    # issue 16 items 23, 25 added corrections and spell_times, with state_version "2"
    assert sorted(raw) == ["characters", "combats", "corrections", "crystals", "packs", "spell_times"]
    assert RULESET.state_version == "2"
    assert raw["characters"]["t"]["race"] == "Humain" and raw["combats"]["d"]["fighters"]["t"]["condition"] \
        == "conscious"
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(s), type=CristalState) == s


@pytest.fixture
def duel(tmp_path):
    c = init_campaign(tmp_path / "d.db", name="D", ruleset="cristal", rounding="round", seed=5)
    for cid in ("thor", "york"):
        c.execute(C.CreateCharacter(id=cid, race="Humain"))
    c.execute(C.AddItem(character="thor", item="Épée longue"))
    c.execute(C.EquipItem(character="thor", item="Épée longue"))
    c.execute(F.StartCombat(combat="duel", fighters=["thor", "york"], its={"york": 2}))
    yield c
    c.close()


def test_a_characters_combat_numbers_are_those_of_its_sheet(duel):
    rules = duel.state().rules
    ch = rules.characters["thor"]
    sheet = C.sheet(ch, C.content_of(rules), "round")
    n = F.numbers(rules, rules.combats["duel"], "thor", "round")
    st, fixed = sheet["stable"], sheet["fixed_effective"]
    assert (n.ATT, n.DP, n.DM, n.CNC, n.DMG, n.PVmax, n.PMmax) == (st["ATT"], st["DP"], st["DM"], st["CNC"],
                                                                 st["DMG"], st["PVmax"], st["PMmax"])
    assert (n.REF, n.CON, n.FRC) == (fixed["REF"], fixed["CON"], fixed["FRC"])
    assert (n.VOL_LEFT, n.CHANCE_LEFT, n.ALIGN_LEFT) == (sheet["vol"]["left"], sheet["chance"]["left"],
                                                         sheet["alignment_pool"]["left"])
    assert n.IT == sheet["weapons"][0]["IT"] and (n.PV, n.PM) == (ch.pv, ch.pm) and n.race == "Humain"
    race = race_for_sex(C.content_of(rules).race(ch.race), ch.sex)
    bare = stable_states(race, ch.classes, C.current_fixed(ch), C.equipped(ch), weapon=None, mode="round",
                         content=C.content_of(rules))
    assert n.ATT0 == bare.ATT  # bare-handed: the ATT a named weapon's adds to
    york = F.numbers(rules, rules.combats["duel"], "york", "round")
    assert york.IT is None  # no weapon: the attack takes IT 6 (L1263)


def test_an_attack_builds_each_combatants_numbers_once(duel, monkeypatch):
    built = []
    real = common.numbers

    def counting(s, cb, fid, mode):
        built.append(fid)
        return real(s, cb, fid, mode)

    monkeypatch.setattr(common, "numbers", counting)
    recs = duel.execute(F.Attack(combat="duel", actor="thor", target="york", weapon="Épée longue"), faces=[20, 5])
    assert recs[0].event.swings[0].hit
    assert sorted(built) == ["thor", "york"]  # the turn order, the attacker, the target and the damage: one each


def test_one_level_cost_rule_with_or_without_the_race_limit():
    elfe = load_core().race("Elfe")
    assert progression.level_cost(elfe, 20) == 91_750_400  # L536-L626
    limited = msgspec.structs.replace(elfe, level_limit=2)
    with pytest.raises(RuleError, match=r"cannot go beyond global level 2 \(race limit, L501\)"):
        progression.level_cost(limited, 3)
    assert progression.level_cost(limited, 3, limit=False) == elfe.level_cost * 4
