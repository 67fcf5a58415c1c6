"""The fights package imports its decisions when first used (issue 20, "one-shot CLI write"): its
tables name them (``Deferred``), its written-out tables agree with the modules they stand for, and
every name its star imports gave before is still the same object."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cristal_events.ruleset import Deferred
from cristal_events.rulesets.cristal import fights as F

ROOT = Path(__file__).resolve().parents[2]
PKG = "cristal_events.rulesets.cristal.fights"
#: the order of the star imports the package made before (a later module's name won)
STAR_ORDER = ("chance", "common", "decide", "fold", "model", "spells", "views")
#: what the package defines after its imports, over any name they bring (its part tables, its own helpers)
OWN = {"TURN_EVENTS", "log_entry", "advise", "EVENTS", "DECIDERS", "EVOLVERS", "SUMMARIES", "COMPENSATORS", "UPCASTERS"}
DECISION_MODULES = ("chance", "common", "corrections", "crystal_spells", "decide", "spells", "views")


def _star_names() -> dict[str, object]:
    found: dict[str, object] = {}
    for name in STAR_ORDER:
        mod = importlib.import_module(f"{PKG}.{name}")
        public = getattr(mod, "__all__", None) or [n for n in vars(mod) if not n.startswith("_")]
        found.update({n: getattr(mod, n) for n in public})
    crystal_spells = importlib.import_module(f"{PKG}.crystal_spells")  # the three it imported by name
    found.update({n: getattr(crystal_spells, n) for n in ("decide_inspect", "decide_lock", "decide_unlock")})
    return found


def test_every_name_the_star_imports_gave_is_the_same_object():
    names = _star_names()
    assert len(names) > 150
    different = [n for n, value in names.items() if n not in OWN and getattr(F, n) is not value]
    assert different == []
    with pytest.raises(AttributeError, match="no attribute 'no_such_rule'"):
        F.no_such_rule  # noqa: B018  (the lookup itself is what is tested)


def test_the_written_out_tables_agree_with_the_modules():
    from cristal_events.rulesets.cristal.fights import corrections, crystal_spells, views

    assert set(F.CRYSTAL_SPELL_EVENTS) == set(crystal_spells.SUMMARY)
    assert {**views.TURN_EVENTS, **{cls: "caster" for cls in crystal_spells.SUMMARY}} == F.TURN_EVENTS
    assert {cls: d.resolve() for cls, d in F.COMPENSATORS.items()} == corrections.COMPENSATORS
    assert F.SUMMARIES[F.AttackResolved].resolve() is views.summarize
    assert F.SUMMARIES[F.RollRedone].resolve() is F.summarize_redone
    assert F.SUMMARIES[F.CrystalLocked].resolve() is crystal_spells.summarize


#: the turn commands, whose decision the tie-break comes before (decide.tie_first, L1202)
TURNS = {"TakeAction", "PassTurn", "Attack", "CastSpell", "ReleaseSpell", "StoreInCrystal", "ReleaseCrystal",
         "UsePotion", "UseAbility", "UseAlignment", "LockCrystal", "UnlockCrystal", "InspectCrystal"}


@pytest.mark.parametrize("cls", list(F.DECIDERS), ids=lambda c: c.__name__)
def test_each_decision_is_the_function_it_names(cls):
    deferred = F.DECIDERS[cls]
    assert isinstance(deferred, Deferred)
    module, _, name = deferred.path.partition(":")
    fn = getattr(importlib.import_module(module), name)
    assert fn is getattr(F, name)
    found = deferred.resolve()
    if cls.__name__ in TURNS:
        assert found is not fn and found.__code__ is F.tie_first(fn).__code__ and found.__name__ == fn.__name__
    else:
        assert found is fn
    assert deferred.resolve() is found  # imported and wrapped once


def test_the_rules_import_no_decision_of_a_fight():
    code = ("import sys\nfrom cristal_events.rulesets import get\nget('cristal')\n"
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('" + PKG + ".'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    loaded = set(out.stdout.split())
    assert {f"{PKG}.{m}" for m in ("events", "fold", "model")} <= loaded
    assert loaded.isdisjoint(f"{PKG}.{m}" for m in DECISION_MODULES)
