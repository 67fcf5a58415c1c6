"""Equipment slots and charges (I-L29-55) decided by the rules (tests/harness.py).

The charge limit is [10 + Fo] (I-L43; ENC-1: Fo 3 → 13); equipped objects, belt and quiver contents
are not charges (I-L46-48); one object in each hand (I-L32). The charges per object are the EXAMPLE
pack's (G2: the text's table is missing).
"""

from __future__ import annotations

import msgspec
import pytest
from harness import Table
from helpers import refused

from cristal_events.rulesets.illergan import gear
from cristal_events.rulesets.illergan import heroes as H
from cristal_events.rulesets.illergan.character import Choices
from cristal_events.rulesets.illergan.content import example_pack

STATS = dict(Fo=3, Dex=50, Vit=60, Vol=40, Mana=10, E=8, Cha=30, Sav=30, Dep=5, Agilité=40, Adresse=60)


def make(**settings):
    c = Table(name="Sac", ruleset="illergan", seed=2, settings=settings)
    c.execute(H.LoadPack(name="example", data=msgspec.to_builtins(example_pack())))
    c.execute(H.CreateHero(character="thor", choices=Choices(name="Thor", race="Humain", class_name="Guerrier",
                                                             heritage="Enfant des rues"),
                           characteristics=STATS, pv=40, pm=0, rn=10, gift_face=3, copper=90000))
    return c


@pytest.fixture
def camp():
    c = make()
    return c


def hero(c):
    return c.state().rules.characters["thor"]


def load(c):
    from cristal_events.rulesets.illergan.state import content_of

    return gear.load(hero(c), content_of(c.state().rules))




def test_the_bag_holds_10_plus_fo_charges(camp):
    assert load(camp).max_charges == 13  # ENC-1: Fo 3 (I-L43)
    camp.execute(H.Carry(character="thor", item="Corde de 10 mètres", qty=5, reason="le grenier"))  # 2 each
    camp.execute(H.Carry(character="thor", item="Torche", qty=3))
    assert load(camp).charges == 13
    refused(camp, H.Carry(character="thor", item="Torche", qty=1),
            "Thor would carry 14 charges in the bag and satchel, more than [10 + Fo] = 13 (I-L43).")
    refused(camp, H.Carry(character="thor", item="Ration de voyage", qty=1),
            "Thor would carry 14 charges in the bag and satchel, more than [10 + Fo] = 13 (I-L43).")
    camp.execute(H.AwardXp(character="thor", amount=100, reason="la tour"))
    camp.execute(H.BuyXp(character="thor", kind="characteristic", target="Fo", value=1, heritage=True))
    assert (hero(camp).max_charges, load(camp).max_charges) == (14, 14)  # the limit follows Fo
    camp.execute(H.Carry(character="thor", item="Ration de voyage", qty=1))


def test_equipped_objects_and_belt_contents_are_not_charges(camp):
    camp.execute(H.Trade(character="thor", item="Cotte de mailles"))
    assert load(camp).charges == 8
    camp.execute(H.Equip(character="thor", slot="armour", item="Cotte de mailles"))  # worn: no charge (I-L48)
    camp.execute(H.Carry(character="thor", item="Ceinture de combat", qty=1))
    camp.execute(H.Carry(character="thor", item="Potion de soin", qty=4))  # on the belt (I-L46)
    camp.execute(H.Carry(character="thor", item="Bottes", qty=2))  # one pair worn, the other in the bag (I-L41, I-L47)
    assert load(camp).charges == 2


def test_one_object_in_each_hand(camp):
    for item in ("Hache à deux mains", "Stylet", "Écu d'écorce clouée"):
        camp.execute(H.Carry(character="thor", item=item, qty=1))
    camp.execute(H.Equip(character="thor", slot="weapon", item="Hache à deux mains"))
    refused(camp, H.Equip(character="thor", slot="shield", item="Écu d'écorce clouée"),
            "Thor cannot equip that: the limit is one object in each hand (I-L32).")
    camp.execute(H.Equip(character="thor", slot="weapon", item="Stylet"))
    camp.execute(H.Equip(character="thor", slot="shield", item="Écu d'écorce clouée"))


def test_leaving_objects_and_a_missing_charge_value(camp):
    refused(camp, H.Carry(character="thor", item="Torche", qty=-1), "Thor carries 0 Torche, not 1.")
    refused(camp, H.Carry(character="thor", item="Grimoire", qty=1),
            "The charges of 'Grimoire' is not set in this campaign's content pack (Part D: G2 encumbrance table).")


def test_a_campaign_may_allow_encumbrance():
    c = make(allow_encumbrance=True)
    c.execute(H.Carry(character="thor", item="Corde de 10 mètres", qty=7))
    enc = load(c)
    assert (enc.charges, enc.max_charges, enc.encumbered) == (14, 13, True)  # I-L45: encumbered, not refused


# ---------------------------------------------------------------- armour pieces (I-L75-79)
def test_equip_takes_only_what_the_hero_carries(camp):
    refused(camp, H.Equip(character="thor", slot="weapon", item="Épée longue"),
            "Thor does not carry Épée longue; buy or pick it up first (I-L47-48).")
    refused(camp, H.Equip(character="thor", slot="armour", item="Cotte de mailles", piece="casque"),
            "Thor does not carry Cotte de mailles (casque); buy or pick it up first (I-L47-48).")
    camp.execute(H.Trade(character="thor", item="Épée longue"))
    camp.execute(H.Equip(character="thor", slot="weapon", item="Épée longue"))
    assert hero(camp).weapon == "Épée longue"


def test_a_piece_protects_its_zone_and_the_maluses_are_the_cuirasses(camp):
    camp.execute(H.Trade(character="thor", item="Peau de bête épaisse"))
    camp.execute(H.Equip(character="thor", slot="armour", item="Peau de bête épaisse"))
    ev = camp.execute(H.Trade(character="thor", item="Cotte de mailles", piece="casque"))[0].event
    assert ev.amount_c == -1800  # 20% of 9000'C for a piece other than the cuirasse (I-L79)
    camp.execute(H.Equip(character="thor", slot="armour", item="Cotte de mailles", piece="casque"))
    h = hero(camp)
    assert (gear.armour_on(h, "tête"), gear.armour_on(h, "tronc"), gear.armour_on(h, "bras gauche")) == (
        "Cotte de mailles", "Peau de bête épaisse", "Peau de bête épaisse")  # each piece its zone (I-L75-77)
    assert gear.cuirasse(h) == "Peau de bête épaisse"  # the casque brings no malus (I-L78)
    ev = camp.execute(H.Trade(character="thor", item="Cotte de mailles", piece="cuirasse"))[0].event
    assert ev.amount_c == -3600  # the cuirasse: 40% (I-L79)
    camp.execute(H.Equip(character="thor", slot="armour", item="Cotte de mailles", piece="cuirasse"))
    camp.execute(H.Equip(character="thor", slot="armour", item=None))  # the full Peau taken off
    h = hero(camp)
    assert gear.cuirasse(h) == "Cotte de mailles" and gear.armour_on(h, "jambe droite") is None
    assert load(camp).charges == 4  # the Peau de bête épaisse now weighs in the bag; the pieces worn do not


def test_a_piece_worn_protects_in_a_fight_and_its_cuirasse_malus_hits_the_attack(camp):
    from cristal_events.rulesets.illergan import fights as F

    camp.execute(H.Trade(character="thor", item="Cotte de mailles", piece="cuirasse"))
    camp.execute(H.Equip(character="thor", slot="armour", item="Cotte de mailles", piece="cuirasse"))
    camp.execute(H.Trade(character="thor", item="Stylet"))
    camp.execute(H.Equip(character="thor", slot="weapon", item="Stylet"))
    camp.execute(H.CreateCreature(character="gob", name="Gobelin", pv=200,
                                  characteristics=dict(Fo=2, Dex=40, Vol=10, Vit=20, Adresse=60)))
    camp.execute(F.StartFight(fight="f", participants=("thor", "gob")))
    camp.execute(F.RollInitiative(fight="f"), faces=[50, 50])
    ev = camp.execute(F.Attack(fight="f", attacker="thor", target="gob"), faces=[30, 1])[0].event
    assert (ev.adresse, ev.dex_maluses) == (40, [-20])  # Adresse 60, the cuirasse's −20 Dex (I-L78, A15)
    hit = camp.execute(F.Attack(fight="f", attacker="gob", target="thor"), faces=[50])[0].event
    assert (hit.zone, hit.sr) == ("tronc", 15)  # bare hands strike C: the cuirasse's SR C 15 on the trunk (I-L77)
    leg = camp.execute(F.Attack(fight="f", attacker="gob", target="thor", action="minor"), faces=[25])
    assert (leg[0].event.zone, leg[0].event.sr) == ("jambe gauche", 0)  # no piece on the legs: no SR


def test_a_piece_is_resold_at_25_percent_of_its_price(camp):
    camp.execute(H.Trade(character="thor", item="Cotte de mailles", piece="cuirasse"))
    camp.execute(H.Equip(character="thor", slot="armour", item="Cotte de mailles", piece="cuirasse"))
    ev = camp.execute(H.Trade(character="thor", item="Cotte de mailles", piece="cuirasse", sell=True))[0].event
    assert (ev.amount_c, ev.reference_c) == (900, 900)  # 25% (I-L26) of 40% of 9000'C (I-L79)
    assert hero(camp).pieces == {}  # sold: no longer worn


# ---------------------------------------------------------------- stowed weapons and the belt (I-L33, I-L46)
def test_stowed_weapons_are_not_charges_up_to_two(camp):
    camp.execute(H.Carry(character="thor", item="Stylet", qty=2))  # two one-handed weapons on the back / belt
    assert load(camp).charges == 0
    camp.execute(H.Carry(character="thor", item="Stylet", qty=1))  # the third goes to the bag (I-L48)
    assert load(camp).charges == 1
    camp.execute(H.Carry(character="thor", item="Hache à deux mains", qty=1))
    assert load(camp).charges == 3  # the two-handed axe (5) stowed alone; the three stylets weigh (I-L33)
    camp.execute(H.Equip(character="thor", slot="weapon", item="Hache à deux mains"))
    assert load(camp).charges == 1  # the axe in hand: two stylets stowed, one in the bag


def test_belt_contents_are_free_only_in_a_belt(camp):
    camp.execute(H.Carry(character="thor", item="Potion de soin", qty=2))
    assert load(camp).charges == 2  # no belt: the potions are in the bag (I-L46, I-L48)
    camp.execute(H.Carry(character="thor", item="Ceinture de combat", qty=1))
    assert load(camp).charges == 0  # in the belt: not charges (I-L36, I-L46)
