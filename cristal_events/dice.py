"""Dice and formula expressions: parse once, evaluate with entered faces or a seeded RNG.

The book's formulas (seed 000, L29) are bracketed arithmetic with dice and the sheet's variables:
``[1d4]+4``, ``[2d6+2]``, ``[(1d6) /3]``, ``FRC/3``, ``[(Alignement) * 5]``; Illergan writes ``Dé100``.
Grammar (catalogue R-DICE, section 3)::

    expr   := term (('+' | '-') term)*
    term   := factor (('*' | '/') factor)*
    factor := NUMBER ['%'] | [NUMBER] DIE | VAR | '(' expr ')' | '[' expr ']' | '-' factor
    DIE    := ('d' | 'D' | 'dé' | 'Dé') SIDES          e.g. d20 = 1d20, Dé100 = 1d100

Values are exact fractions; every ``*`` and ``/`` is rounded with the campaign's mode right after it
is computed (L23), and the total is rounded to an integer. Randomness is an input (STYLE 7): faces come
from a :class:`Dice`, which either hands out the faces typed in at the table or rolls a seeded
``random.Random``; every face is returned in the :class:`~cristal_events.rolls.Roll`.

>>> evaluate("[2d6+2]", faces=[3, 3]).total
8
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import msgspec

import cristal_events.rounding as _rounding
from cristal_events.errors import DiceError
from cristal_events.rolls import Roll

from .i18n import _
from .patterns import pattern, unicode_data  # made when first used

if TYPE_CHECKING:  # a seeded Random is the caller's; hmac and unicodedata are imported where used, so that a
    import random  # command that rolls nothing loads neither OpenSSL nor them (benchmarks/README.md, "Ninth session")

__all__ = [
    "MAX_DEPTH", "MAX_DICE", "MAX_LENGTH", "MAX_SIDES", "MAX_VALUE",
    "BinOp", "Dice", "DiceError", "Die", "Expr", "Neg", "Number", "Roll", "Var",
    "dice_in", "engine_face", "evaluate", "parse", "variables_in",
]

MAX_LENGTH = 500          # characters of text
MAX_DEPTH = 32            # nested brackets, parentheses and unary minus signs
MAX_DICE = 100            # dice rolled by one expression
MAX_SIDES = 1000          # sides of one die
MAX_VALUE = 10**12        # magnitude of any literal, variable or intermediate value

Rounding = Literal["round", "truncate"]


# ---------------------------------------------------------------------------------------------
# The tree. Immutable; str() gives the normalised text (brackets become parentheses only where
# precedence needs them, so "[1d4]+4" and "1d4+4" are the same Expr).

class Expr(msgspec.Struct, frozen=True):
    """A parsed expression; ``str(expr)`` is its normalised text and parses back to an equal Expr.

    The nodes are frozen msgspec Structs (equal, hashable, matched by keyword like dataclasses, and
    created in C, unlike dataclasses: see benchmarks/README.md, 'dice nodes')."""

    precedence: ClassVar[int] = 4


def _decimal(v: Fraction) -> str:
    if v.denominator == 1:
        return str(v.numerator)
    places = 0
    while (v * 10**places).denominator != 1:  # literals are finite decimals
        places += 1
    digits = str(abs(v * 10**places).numerator).rjust(places + 1, "0")
    return ("-" if v < 0 else "") + digits[:-places] + "." + digits[-places:]


class Number(Expr, frozen=True):
    """A literal. ``percent`` keeps the ``%`` sign: ``value`` is the printed number (30 for 30%)."""

    value: Fraction
    percent: bool = False

    def __str__(self) -> str:
        return _decimal(self.value) + ("%" if self.percent else "")


class Die(Expr, frozen=True):
    """``count`` dice of ``sides`` sides, summed."""

    count: int
    sides: int

    def __str__(self) -> str:
        return f"{self.count}d{self.sides}"


class Var(Expr, frozen=True):
    """A sheet variable (FRC, DEX, PM ...), looked up when the expression is evaluated."""

    name: str

    def __str__(self) -> str:
        return self.name


class Neg(Expr, frozen=True):
    operand: Expr
    precedence: ClassVar[int] = 3

    def __str__(self) -> str:
        inner = str(self.operand)
        return f"-{inner}" if self.operand.precedence >= 3 else f"-({inner})"


_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}


class BinOp(Expr, frozen=True):
    op: str
    left: Expr
    right: Expr

    @property
    def precedence(self) -> int:  # type: ignore[override]
        return _PRECEDENCE[self.op]

    def __str__(self) -> str:
        p = self.precedence
        left, right = str(self.left), str(self.right)
        if self.left.precedence < p:
            left = f"({left})"
        # Equal precedence on the right keeps its parentheses: a-(b-c) and a*(b/c) differ,
        # the latter because each operation is rounded.
        if self.right.precedence <= p:
            right = f"({right})"
        return f"{left}{self.op}{right}"


# ---------------------------------------------------------------------------------------------
# Tokens

_TOKEN = pattern(
    r"(?P<ws>\s+)"
    r"|(?P<num>[0-9]+(?:[.,][0-9]+)?)"
    r"|(?P<name>[^\W\d_][\w]*)"
    r"|(?P<op>[-+*/%()\[\]])"
)
_DIE_WORD = pattern(r"(?:d|D|dé|Dé|dÉ|DÉ)(?P<sides>[0-9]+)?")
_CLOSER = {"(": ")", "[": "]"}


class _Tok(msgspec.Struct, frozen=True):
    kind: str      # num | name | die | op | end
    text: str
    pos: int       # 1-based column
    value: Fraction | None = None
    sides: int | None = None


def _tokens(text: str) -> list[_Tok]:
    out: list[_Tok] = []
    i = 0
    while i < len(text):
        m = _TOKEN.match(text, i)
        if m is None:
            raise DiceError(_("Unexpected character {text!r} at position {value}.").format(text=text[i], value=i + 1))
        kind, chunk, pos = m.lastgroup or "", m.group(), i + 1
        i = m.end()
        if kind == "ws":
            continue
        if kind == "num":
            value = Fraction(chunk.replace(",", "."))
            if abs(value) > MAX_VALUE:
                raise DiceError(_("The number {chunk} at position {pos} exceeds the limit of {MAX_VALUE}.").format(chunk=chunk, pos=pos, MAX_VALUE=MAX_VALUE))
            out.append(_Tok("num", chunk, pos, value=value))
        elif kind == "name" and (d := _DIE_WORD.fullmatch(chunk)):
            sides = d.group("sides")
            out.append(_Tok("die", chunk, pos, sides=int(sides) if sides else None))
        else:
            out.append(_Tok(kind, chunk, pos))
    out.append(_Tok("end", "", len(text) + 1))
    return out


# ---------------------------------------------------------------------------------------------
# Parser (recursive descent, one method per grammar rule)

class _Parser:
    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.i = 0
        self.depth = 0
        self.dice = 0

    def peek(self) -> _Tok:
        return self.toks[self.i]

    def next(self) -> _Tok:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def unexpected(self, tok: _Tok, wanted: str) -> DiceError:
        if tok.kind == "end":
            return DiceError(_("The expression ends where {wanted} was expected.").format(wanted=wanted))
        return DiceError(_("Unexpected {text!r} at position {pos}; {wanted} was expected.").format(text=tok.text, pos=tok.pos, wanted=wanted))

    def whole(self) -> Expr:
        if self.peek().kind == "end":
            raise DiceError(_("The expression is empty."))
        expr = self.expr()
        tok = self.peek()
        if tok.kind != "end":
            raise self.unexpected(tok, "an operator")
        return expr

    def expr(self) -> Expr:
        node = self.term()
        while self.peek().text in ("+", "-") and self.peek().kind == "op":
            op = self.next().text
            node = BinOp(op, node, self.term())
        return node

    def term(self) -> Expr:
        node = self.factor()
        while self.peek().text in ("*", "/") and self.peek().kind == "op":
            op = self.next().text
            node = BinOp(op, node, self.factor())
        return node

    def enter(self, tok: _Tok) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise DiceError(_("The expression nests deeper than {MAX_DEPTH} levels at position {pos}.").format(MAX_DEPTH=MAX_DEPTH, pos=tok.pos))

    def factor(self) -> Expr:
        tok = self.next()
        wanted = _("a number, a die, a variable or a bracket")
        if tok.kind == "op" and tok.text in _CLOSER:
            self.enter(tok)
            inner = self.expr()
            close = self.next()
            if close.text != _CLOSER[tok.text] or close.kind != "op":
                if close.kind == "end":
                    raise DiceError(_("The {text!r} at position {pos} is never closed.").format(text=tok.text, pos=tok.pos))
                raise DiceError(
                    _("Unexpected {text!r} at position {pos}; {CLOSER!r} was expected to close the {text2!r} "
                      "at position {pos2}.").format(text=close.text, pos=close.pos, CLOSER=_CLOSER[tok.text], text2=tok.text, pos2=tok.pos)
                )
            self.depth -= 1
            return inner
        if tok.kind == "op" and tok.text == "-":
            self.enter(tok)
            node = Neg(self.factor())
            self.depth -= 1
            return node
        if tok.kind == "num":
            assert tok.value is not None
            after = self.peek()
            if after.kind == "die":
                if tok.value.denominator != 1:
                    raise DiceError(_("The dice count {text} at position {pos} is not a whole number.").format(text=tok.text, pos=tok.pos))
                return self.die(self.next(), int(tok.value), tok)
            if after.kind == "op" and after.text == "%":
                self.next()
                return Number(tok.value, percent=True)
            return Number(tok.value)
        if tok.kind == "die":
            return self.die(tok, 1, tok)
        if tok.kind == "name":
            return Var(tok.text)
        raise self.unexpected(tok, wanted)

    def die(self, tok: _Tok, count: int, start: _Tok) -> Die:
        sides = tok.sides
        if sides is None:  # "dé 20", "1 d 6"
            nxt = self.next()
            if nxt.kind != "num" or nxt.value is None or nxt.value.denominator != 1:
                raise self.unexpected(nxt, _("the number of sides after {text!r}").format(text=tok.text))
            sides = int(nxt.value)
        if count < 1:
            raise DiceError(_("The dice count at position {pos} is {count}; roll at least 1 die.").format(pos=start.pos, count=count))
        if not 1 <= sides <= MAX_SIDES:
            raise DiceError(_("A die must have 1 to {MAX_SIDES} sides, not {sides} (position {pos}).").format(MAX_SIDES=MAX_SIDES, sides=sides, pos=tok.pos))
        self.dice += count
        if self.dice > MAX_DICE:
            raise DiceError(_("The expression rolls more than {MAX_DICE} dice (position {pos}).").format(MAX_DICE=MAX_DICE, pos=start.pos))
        return Die(count, sides)


def parse(text: str) -> Expr:
    """Parse a formula such as ``[2d6+2]`` or ``FRC/3``; raise :class:`DiceError` naming the position.

    >>> str(parse("[ (1d6) /3 ]")), str(parse("Dé100 + Dex")), str(parse("50*10%"))
    ('1d6/3', '1d100+Dex', '50*10%')
    """
    if not isinstance(text, str):
        raise DiceError(_("An expression must be text, not {name}.").format(name=type(text).__name__))
    if len(text) > MAX_LENGTH:
        raise DiceError(_("The expression is {len} characters long; the limit is {MAX_LENGTH}.").format(len=len(text), MAX_LENGTH=MAX_LENGTH))
    # NFC so that a decomposed 'dé' (d + combining accent) reads like the composed one.
    if not text.isascii():  # ASCII text is NFC already
        text = unicode_data().normalize("NFC", text)
    return _Parser(text).whole()


def _as_expr(expr: Expr | str) -> Expr:
    return expr if isinstance(expr, Expr) else parse(expr)


def _dice_count(node: Expr) -> int:
    match node:
        case Die(count=count):
            return count
        case Neg(operand=operand):
            return _dice_count(operand)
        case BinOp(left=left, right=right):
            return _dice_count(left) + _dice_count(right)
        case _:
            return 0


def _check_dice(node: Expr) -> None:
    if _dice_count(node) > MAX_DICE:
        raise DiceError(_("The expression rolls more than {MAX_DICE} dice.").format(MAX_DICE=MAX_DICE))


def dice_in(expr: Expr | str) -> list[int]:
    """The number of sides of each die the expression rolls, in roll order.

    >>> dice_in("[2d6+2]"), dice_in("1d20")
    ([6, 6], [20])
    """
    node = _as_expr(expr)
    _check_dice(node)
    out: list[int] = []

    def walk(n: Expr) -> None:
        match n:
            case Die(count=count, sides=sides):
                out.extend([sides] * count)
            case Neg(operand=operand):
                walk(operand)
            case BinOp(left=left, right=right):
                walk(left)
                walk(right)

    walk(node)
    return out


def variables_in(expr: Expr | str) -> list[str]:
    """The sheet variables the expression names, in order.

    >>> variables_in("1d20 + DEX/2"), variables_in("[2d6+2]")
    (['DEX'], [])
    """
    out: list[str] = []

    def walk(n: Expr) -> None:
        match n:
            case Var(name=name):
                out.append(name)
            case Neg(operand=operand):
                walk(operand)
            case BinOp(left=left, right=right):
                walk(left)
                walk(right)

    walk(_as_expr(expr))
    return out


# ---------------------------------------------------------------------------------------------
# Evaluation

def _bounded(value: Fraction, node: Expr) -> Fraction:
    if abs(value) > MAX_VALUE:
        raise DiceError(_("The value of {str!r} exceeds the limit of {MAX_VALUE} in magnitude.").format(str=str(node), MAX_VALUE=MAX_VALUE))
    return value


def _resolve(name: str, variables: Mapping[str, int | Fraction]) -> Fraction:
    if name in variables:
        raw = variables[name]
    else:
        matches = sorted(k for k in variables if k.casefold() == name.casefold())
        if len(matches) > 1:
            raise DiceError(_("Variable {name!r} is ambiguous: it matches {items}.").format(name=name, items=', '.join(matches)))
        if not matches:
            known = ", ".join(sorted(variables)) or "none"
            raise DiceError(_("Unknown variable {name!r} (known variables: {known}).").format(name=name, known=known))
        raw = variables[matches[0]]
    if isinstance(raw, bool) or not isinstance(raw, int | Fraction | float):
        raise DiceError(_("Variable {name!r} has the non-numeric value {raw!r}.").format(name=name, raw=raw))
    value = _rounding.to_fraction(raw)
    if abs(value) > MAX_VALUE:
        raise DiceError(_("Variable {name!r} is {raw}, beyond the limit of {MAX_VALUE} in magnitude.").format(name=name, raw=raw, MAX_VALUE=MAX_VALUE))
    return value


class _Evaluator:
    def __init__(self, dice: Dice, variables: Mapping[str, int | Fraction], mode: Rounding) -> None:
        self.dice, self.variables, self.mode = dice, variables, mode

    def value(self, node: Expr) -> Fraction:
        match node:
            case Number(value=value, percent=percent):
                return value / 100 if percent else value
            case Var(name=name):
                return _resolve(name, self.variables)
            case Die(count=count, sides=sides):
                return Fraction(sum(self.dice.take(sides) for _ in range(count)))
            case Neg(operand=operand):
                return -self.value(operand)
            case BinOp(op=op, left=left, right=right):
                a = self.value(left)
                b = self.value(right)
                match op:
                    case "+":
                        result = a + b
                    case "-":
                        result = a - b
                    case "*":
                        result = Fraction(_rounding.apply(a * b, self.mode))
                    case "/":
                        if b == 0:
                            raise DiceError(_("Division by zero in {str!r}.").format(str=str(node)))
                        result = Fraction(_rounding.apply(a / b, self.mode))
                    case _:
                        raise DiceError(_("Unknown operator {op!r}.").format(op=op))
                return _bounded(result, node)
            case _:
                raise DiceError(_("{node!r} is not a dice expression node.").format(node=node))


_SPAN = 1 << 256


@functools.cache
def _hmac() -> tuple[Any, Any]:
    """``hmac.digest`` and OpenSSL's SHA-256 (hmac loads ``_hashlib``), imported when the engine first rolls
    a keyed die: a command that rolls nothing loads neither (benchmarks/README.md, "Ninth session")."""
    import hashlib
    import hmac

    return hmac.digest, hashlib.sha256


def engine_face(key: bytes, salt: str, n: int, sides: int) -> int:
    """Die number ``n`` of a keyed stream (docs/verifiable-dice.md): HMAC-SHA256 of ``f"{salt}:{n}"``
    under ``key``, read as a 256-bit integer and mapped without bias to 1..sides by rejection
    sampling (a value in the incomplete top range, probability < 2**-246, is drawn again with
    ``f"{salt}:{n}:{k}"``, k = 1, 2 ...).

    >>> engine_face(b"secret", "", 0, 20)
    10
    """
    digest, sha256 = _hmac()
    limit = _SPAN - _SPAN % sides
    k = 0
    while True:
        msg = f"{salt}:{n}" if k == 0 else f"{salt}:{n}:{k}"
        value = int.from_bytes(digest(key, msg.encode(), sha256), "big")
        if value < limit:
            return value % sides + 1
        k += 1


class Dice:
    """Where faces come from for one command: entered at the table, or rolled by the engine.

    The engine rolls either a keyed stream (:meth:`keyed`: die ``n`` is :func:`engine_face`, ``n``
    counting on from ``start``) or a seeded ``random.Random`` (:meth:`seeded`, for tests and
    reproducible tools). Every successful :meth:`roll` is kept in :attr:`record`, in the order
    rolled, with the sides of each die in :attr:`sides`: the service writes that record to the log.

    >>> d = Dice.entered([3, 3, 17])
    >>> d.roll("[2d6+2]").total, d.roll("1d20 + 8", purpose="attack").total
    (8, 25)
    >>> d.finish()
    """

    def __init__(self, source: Literal["entered", "rolled"], faces: Sequence[int] = (),
                 rng: random.Random | None = None, key: bytes | None = None, salt: str = "",
                 start: int = 0) -> None:
        self.source: Literal["entered", "rolled"] = source
        self._faces = list(faces)
        self._rng = rng
        self._key = key
        self._salt = salt
        #: the counter of the first die of this command, and of the next one
        self.start = self.next = start
        self.used: list[int] = []
        #: the sides of each die in ``used``
        self.sides: list[int] = []
        #: every Roll handed out, in order, with the sides of each of its dice
        self.record: list[tuple[Roll, tuple[int, ...]]] = []
        #: the index in ``record`` of each re-roll -> the Roll it replaces (one of this command's own
        #: rolls, or one an earlier command stored: the service finds where it is recorded)
        self.replaced: dict[int, Roll | tuple[int, int]] = {}
        self._replacing: Roll | tuple[int, int] | None = None

    @classmethod
    def entered(cls, faces: Sequence[int]) -> Dice:
        """Faces rolled at the table and typed in, handed out in order."""
        for face in faces:
            if isinstance(face, bool) or not isinstance(face, int):
                raise DiceError(_("Entered face {face!r} is not a whole number.").format(face=face))
        return cls("entered", faces)

    @classmethod
    def seeded(cls, rng: random.Random) -> Dice:
        """Faces rolled by ``rng`` (seed it to make the rolls reproducible)."""
        return cls("rolled", rng=rng)

    @classmethod
    def keyed(cls, key: bytes, salt: str = "", start: int = 0) -> Dice:
        """Faces of the keyed stream ``key``/``salt``, die counter starting at ``start``."""
        return cls("rolled", key=key, salt=salt, start=start)

    @property
    def engine(self) -> bool:
        return self._rng is not None or self._key is not None

    def take(self, sides: int) -> int:
        """The next face of a die with ``sides`` sides. On a d100 an entered 0 (the "00") reads 100."""
        if not 1 <= sides <= MAX_SIDES:
            raise DiceError(_("A die must have 1 to {MAX_SIDES} sides, not {sides}.").format(MAX_SIDES=MAX_SIDES, sides=sides))
        if self._key is not None:
            face = engine_face(self._key, self._salt, self.next, sides)
            self.next += 1
        elif self._rng is not None:
            face = self._rng.randint(1, sides)
        else:
            n = len(self.used)
            if n >= len(self._faces):
                raise DiceError(
                    _("{faces} entered but the command needs more (a d{sides} is next).").format(faces=_faces(len(self._faces)), sides=sides)
                )
            face = self._faces[n]
            if sides == 100 and face == 0:  # Illergan I-L316: "99 et 100 (00)"
                face = 100
            if not 1 <= face <= sides:
                raise DiceError(_("Face {face} is out of range for a d{sides}.").format(face=face, sides=sides))
        self.used.append(face)
        self.sides.append(sides)
        return face

    def roll(self, expr: str | Expr, *, variables: Mapping[str, int | Fraction] | None = None,
             rounding: Rounding = "round", purpose: str = "",
             replaces: Roll | tuple[int, int] | None = None) -> Roll:
        """Evaluate one expression with the next faces; on error no face is consumed.

        ``replaces``: the roll this one replaces (a Chance reroll, a tie-break's next round), named in
        the dice record so that a chain of re-rolls is visible (docs/verifiable-dice.md): a Roll (one
        of this command's, or one an earlier command stored) or ``(record position, roll index)``."""
        if rounding not in _rounding.MODES:
            raise DiceError(_("Unknown rounding mode {rounding!r}; use round or truncate.").format(rounding=rounding))
        node = _as_expr(expr)
        _check_dice(node)
        start, counter = len(self.used), self.next
        state = self._rng.getstate() if self._rng is not None else None
        try:
            value = _Evaluator(self, variables or {}, rounding).value(node)
        except DiceError:
            del self.used[start:]
            del self.sides[start:]
            self.next = counter
            if self._rng is not None and state is not None:
                self._rng.setstate(state)
            raise
        roll = Roll(expr=str(node), faces=tuple(self.used[start:]),
                    total=_rounding.apply(value, rounding), source=self.source, purpose=purpose)
        if replaces is None:
            replaces, self._replacing = self._replacing, None
        if replaces is not None:
            self.replaced[len(self.record)] = replaces
        self.record.append((roll, tuple(self.sides[start:])))
        return roll

    def replacing(self, roll: Roll | tuple[int, int]) -> Dice:
        """Name the roll the next :meth:`roll` replaces (a rule's re-roll that rolls through a helper,
        e.g. a Chance reroll of a damage roll); returns this Dice."""
        self._replacing = roll
        return self

    def finish(self) -> None:
        """Refuse entered faces that the command did not use."""
        if not self.engine and len(self.used) < len(self._faces):
            raise DiceError(_("{faces} entered but the command used {len}.").format(faces=_faces(len(self._faces)), len=len(self.used)))


def _faces(n: int) -> str:
    return "1 face was" if n == 1 else f"{n} faces were"


def evaluate(expr: str | Expr, *, variables: Mapping[str, int | Fraction] | None = None,
             rounding: Rounding = "round", faces: Sequence[int] | None = None,
             rng: random.Random | None = None, purpose: str = "") -> Roll:
    """One expression, one :class:`Dice`: entered ``faces`` (all must be used) or a seeded ``rng``.

    An expression without dice needs neither.

    >>> evaluate("12 + 12*30%").total, evaluate("12 + 12*30%", rounding="truncate").total
    (16, 15)
    """
    if faces is not None and rng is not None:
        raise ValueError("give entered faces or an rng, not both")
    node = _as_expr(expr)
    if faces is None and rng is None and dice_in(node):
        raise DiceError(_("{str!r} rolls dice but no faces were entered.").format(str=str(node)))
    dice = Dice.seeded(rng) if rng is not None else Dice.entered(faces or ())
    result = dice.roll(node, variables=variables, rounding=rounding, purpose=purpose)
    dice.finish()
    return result
