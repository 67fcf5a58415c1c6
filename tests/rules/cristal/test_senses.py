"""Senses as distances: the book's "Exemple d'Échelle" tables (TV-10, seed 000 L208-L227)."""

from __future__ import annotations

import pytest
from harness import given

from cristal_events.rulesets.cristal import senses
from cristal_events.rulesets.cristal.characters import CreateCharacter, content_of, sheet

BY_EXAMPLE = {s.example: s for s in senses.scales()}


@pytest.mark.parametrize("example, value, distance", [
    ("Distinguer le visage d'une personne", 0, 25),            # L209: à 25 mètres
    ("Distinguer le visage d'une personne", 6, 55),            # Elfe Vue +6 (L557): 25 + 6 × 5
    ("Lire l'année sur une pièce de monnaie", 0, 100),         # L210: à 100 centimètres
    ("Compter le nombre de silhouettes à l'horizon", 1, 240),  # L211: 200 + 40
    ("Entendre quelqu'un marcher en forêt", 6, 44),            # L216 with Elfe Ouïe +6
    ("Entendre quelqu'un marcher en forêt", 2, 28),            # Nain Ouïe +2
    ("Cliquetis métallique dans une foule bruyante", 0, 4),    # L217
    ("Percevoir un cri lointain", 0, 200),                     # L218
    ("Sentir l'odeur de la viande grillée en plein air", 0, 35),  # L225
    ("Suivre la trace d'une personne", 0, 1),                  # L226
    ("Sortir d'un donjon (en suivant la brise fraîche)", 2, 11),  # L227: 5 + 2 × 3
    ("Distinguer le visage d'une personne", -6, 0),            # Nain Vue -4 ... clamped at 0 (D33)
], ids=lambda x: str(x)[:24])
def test_printed_scales(example, value, distance):
    assert senses.reach(BY_EXAMPLE[example], value) == distance


def test_the_sheet_gives_each_sense_as_distances():
    world = given(CreateCharacter(id="xar", race="Elfe", name="Xar")).table.state()
    data = sheet(world.rules.characters["xar"], content_of(world.rules), "round")
    face = next(r for r in data["sense_ranges"] if r["example"] == "Distinguer le visage d'une personne")
    assert face == {"sense": "Vue", "example": "Distinguer le visage d'une personne", "distance": 55, "unit": "m"}
    assert {r["sense"] for r in data["sense_ranges"]} == {"Vue", "Ouïe", "Odorat"}
