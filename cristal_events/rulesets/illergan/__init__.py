"""The Dé100 rules of Illergan (seed 001): pure rules over plain data and the game master's content pack."""

from .ruleset import RULESET
