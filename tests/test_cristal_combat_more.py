"""Combat gaps of issue 5 closed in phase 2: projectiles consumed, Chance on every kind of roll (L56-L58),
Verrou Cristallin and Vision Cristalline as commands (L1119-L1135). Values from seed 000."""

from __future__ import annotations

import pytest

from cristal_events import init_campaign
from cristal_events.errors import RuleError
from cristal_events.rulesets.cristal import characters as C
from cristal_events.rulesets.cristal import fights as F


@pytest.fixture
def camp(tmp_path):
    c = init_campaign(tmp_path / "c.db", name="Gaps", ruleset="cristal", rounding="round", seed=5)
    yield c
    c.close()


def log_length(c):
    return c.store.last_position()


def qty(c, who, item):
    return next((i.qty for i in c.state().rules.characters[who].items if i.name == item), 0)


# --------------------------------------------------------------------------- projectiles

@pytest.fixture
def archer(camp):
    camp.execute(C.CreateCharacter(id="robin", race="Humain"))
    camp.execute(C.AddItem(character="robin", item="Arc"))
    camp.execute(C.EquipItem(character="robin", item="Arc"))
    camp.execute(C.AddItem(character="robin", item="Flèche", qty=3))
    camp.execute(F.StartCombat(combat="r", fighters=["robin", "cible"], its={"cible": 100},
                               stats={"cible": {"DP": 30, "PV": 10}}))
    return camp


def shoot(c, chain=False, faces=(1,)):
    return c.execute(F.Attack(combat="r", actor="robin", target="cible", weapon="Arc", projectile="Flèche",
                              chain=chain), faces=list(faces))


def test_each_shot_takes_one_projectile_from_the_bag(archer):
    # L1338-L1340: the arrow is shot; the sheet's QTÉ follows (Feuille de Personnage, équipement)
    ev = shoot(archer)[0].event
    assert ev.projectiles_used == 1 and qty(archer, "robin", "Flèche") == 2
    sheet = C.sheet(archer.state().rules.characters["robin"], C.content_of(archer.state().rules), "round")
    assert [i["qty"] for i in sheet["items"] if i["name"] == "Flèche"] == [2]


def test_a_chained_attack_shoots_two_projectiles_and_the_last_one_empties_the_line(archer):
    # L1363: two attacks in one IT, hence two arrows
    shoot(archer, chain=True, faces=(1, 1))
    assert qty(archer, "robin", "Flèche") == 1
    shoot(archer)
    assert all(i.name != "Flèche" for i in archer.state().rules.characters["robin"].items)


def test_no_projectile_left_is_refused_and_nothing_appended(archer):
    shoot(archer, chain=True, faces=(1, 1))
    before = log_length(archer)
    with pytest.raises(RuleError, match="^robin has 1 Flèche left and the attack needs 2.$"):
        shoot(archer, chain=True, faces=(1, 1))
    shoot(archer)
    with pytest.raises(RuleError, match="^robin has 0 Flèche left and the attack needs 1.$"):
        shoot(archer)
    assert log_length(archer) == before + 1
