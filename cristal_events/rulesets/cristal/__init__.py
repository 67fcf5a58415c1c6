"""Les Lois du Cristal (seed 000): pure rules over plain data and the core content pack."""

from .ruleset import RULESET
