"""Conditions on the hands of a deal: a small language read by its own parser, never by ``eval``.

A condition selects deals by features of the hands and the skat::

    jacks(forehand) >= 3 and length(forehand, 'C') >= 4
    has(middlehand, 'CJ') and not has(middlehand, 'SJ')
    1 <= aces(rearhand) <= 2 or points(skat) >= 10
    eval('trump_length', forehand, 'grand') >= 5

The features (:data:`FEATURES`) take a part of the deal, ``forehand``, ``middlehand``, ``rearhand``
or ``skat`` (``eval`` a seat only), and the words that follow as a quoted text or a bare word (a
suit ``'C'`` or ``clubs``, a card ``'CJ'``, a game ``'grand'``, an evaluator's name). Around them:
numbers, ``+ - *``, the comparisons ``< <= == != >= >`` (chained as ``1 <= x <= 2``), ``and``, ``or``,
``not`` and parentheses. Nothing else is read: no other name, no attribute, no call of anything but
a feature, no power; a condition in a manifest from another machine can do nothing but select deals.

:func:`parse` gives the condition's tree (every mistake a :class:`ConditionError` naming its column),
:func:`condition_text` its one way of writing, and :func:`evaluate` its truth over a batch of deals
(:class:`HandValues`) or of anything else that gives the features' values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .cards import ACE, CARD_POINTS, JACK, SUIT_LETTERS, SUIT_SYMBOLS, TEN, CardError, format_card, parse_card, shown
from .games import GAME_NAMES, GRAND, NULL

#: The parts of a deal a feature reads: the three seats, then the skat (the columns of a deal array).
PARTS = ("forehand", "middlehand", "rearhand", "skat")
SKAT_PART = 3
#: Limits that keep a condition small: its characters, and how deep parentheses, not and signs nest.
MAX_LENGTH = 1000
MAX_DEPTH = 40
_MAX_DIGITS = 12


@dataclass(frozen=True)
class FeatureSpec:
    arguments: tuple[str, ...]
    kind: str          # "number" or "condition"
    summary: str


#: The features a condition may name, with their arguments and what each gives. SEAT is forehand,
#: middlehand, rearhand or skat (eval: a seat of ten cards), SUIT C, S, H, D (or clubs ...), CARD a card
#: (CJ, H10), GAME a game (trumps: a suit or grand), NAME a registered evaluator.
FEATURES = {
    "jacks": FeatureSpec(("SEAT",), "number", "the jacks held (0 to 4)"),
    "aces": FeatureSpec(("SEAT",), "number", "the aces held"),
    "tens": FeatureSpec(("SEAT",), "number", "the tens held"),
    "points": FeatureSpec(("SEAT",), "number", "the card points held"),
    "length": FeatureSpec(("SEAT", "SUIT"), "number", "the cards of the suit held, its jack not counted (0 to 7)"),
    "trumps": FeatureSpec(("SEAT", "GAME"), "number",
                          "the trumps held in a suit game or grand: the jacks, and in a suit game the suit's cards"),
    "has": FeatureSpec(("SEAT", "CARD"), "condition", "whether the card is held"),
    "eval": FeatureSpec(("NAME", "SEAT", "GAME"), "number",
                        "evaluator NAME's score of the seat's ten cards for the game, as its bidder sees them"),
}
_SUIT_WORDS = {**{name: s for s, name in enumerate(("diamonds", "hearts", "spades", "clubs"))},
               **{letter.lower(): s for s, letter in enumerate(SUIT_LETTERS)},
               **{symbol: s for s, symbol in enumerate(SUIT_SYMBOLS)}}


class ConditionError(ValueError):
    """A condition written wrongly: one line naming the column of the mistake."""

    def __init__(self, text: str, column: int, problem: str):
        super().__init__(f"condition {shown(text)}, column {column}: {problem}")
        self.column, self.problem = column, problem


# --- the tree ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Number:
    value: int | float
    column: int


@dataclass(frozen=True)
class Feature:
    name: str
    part: int
    argument: int | tuple | None   # a suit, a card, a game, or (evaluator, game) for eval
    column: int


@dataclass(frozen=True)
class Comparison:
    operands: tuple
    operators: tuple[str, ...]
    column: int


@dataclass(frozen=True)
class Logic:
    operator: str                  # "and" or "or"
    items: tuple
    column: int


@dataclass(frozen=True)
class Negation:
    item: object
    column: int


@dataclass(frozen=True)
class Arithmetic:
    operator: str                  # "+", "-", "*", or "neg" (a sign, ``right`` None)
    left: object
    right: object
    column: int


def kind(node) -> str:
    """``number`` or ``condition``: what a node gives."""
    if isinstance(node, (Number, Arithmetic)):
        return "number"
    if isinstance(node, Feature):
        return FEATURES[node.name].kind
    return "condition"


def features(node) -> list[Feature]:
    """Every feature a condition names, in the order written."""
    if isinstance(node, Feature):
        return [node]
    children = {Comparison: lambda n: n.operands, Logic: lambda n: n.items, Negation: lambda n: (n.item,),
                Arithmetic: lambda n: (n.left, n.right)}.get(type(node), lambda n: ())(node)
    return [f for child in children if child is not None for f in features(child)]


def conjuncts(node) -> list:
    """The parts of a condition joined by ``and`` at its top (the condition alone when there is none)."""
    if isinstance(node, Logic) and node.operator == "and":
        return [c for item in node.items for c in conjuncts(item)]
    return [node]


def joined(items: list):
    """The conjunction of conditions (None for none, the one for one)."""
    if not items:
        return None
    return items[0] if len(items) == 1 else Logic("and", tuple(items), items[0].column)


# --- reading ----------------------------------------------------------------------------------

_TOKEN = re.compile(r"""\s*(?:(?P<number>\d+(?:\.\d+)?)|(?P<word>[A-Za-z_][A-Za-z0-9_]*)|(?P<text>'[^'\n]*'|"[^"\n]*")
                        |(?P<operator>\*\*|>=|<=|==|!=|[<>+\-*(),=]))""", re.X)


@dataclass(frozen=True)
class Token:
    kind: str      # number, word, text, operator, end
    text: str
    column: int


def tokens(text: str):
    """The tokens of ``text`` one at a time, so that the reader names the first mistake in reading order."""
    at = 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            yield Token("end", "", at + 1)
            return
        match = _TOKEN.match(text, at)
        if match is None or match.end() == at:
            raise ConditionError(text, at + 1, f"{text[at]!r} is not part of the condition language (features,"
                                               " numbers, + - *, comparisons, and, or, not, parentheses)")
        group = match.lastgroup
        word = match.group(group)
        column = match.start(group) + 1
        if group == "operator" and word in ("**", "="):
            raise ConditionError(text, column, "'**' is no operator of conditions (no powers)" if word == "**"
                                 else "'=' is no comparison; write == for equal")
        if group == "number" and len(word) > _MAX_DIGITS:
            raise ConditionError(text, column, f"the number {word[:20]}... has more than {_MAX_DIGITS} digits")
        yield Token(group, word, column)
        at = match.end()


def parse(text: str, evaluators=()) -> object:
    """The tree of the condition ``text``; ``evaluators`` are the names ``eval`` may take.
    :class:`ConditionError` names the column of the first mistake."""
    if not isinstance(text, str):
        raise ConditionError(shown(text), 1, "a condition is a text")
    if len(text) > MAX_LENGTH:
        raise ConditionError(text, MAX_LENGTH + 1, f"the condition has {len(text):,} characters; at most"
                                                    f" {MAX_LENGTH:,}")
    if not text.strip():
        raise ConditionError(text, 1, "the condition is empty")
    reader = _Reader(text, tokens(text), tuple(evaluators))
    node = reader.either()
    reader.expect_end()
    if kind(node) != "condition":
        raise ConditionError(text, node.column, "the condition is a number; compare it (e.g. >= 2)")
    return node


class _Reader:
    """Recursive descent over the tokens: either > both > negation > comparison > sum > product > sign."""

    def __init__(self, text: str, found, evaluators: tuple[str, ...]):
        self.text, self.tokens, self.ahead, self.depth, self.evaluators = text, found, None, 0, evaluators

    def fail(self, column: int, problem: str):
        raise ConditionError(self.text, column, problem)

    @property
    def next(self) -> Token:
        if self.ahead is None:
            self.ahead = next(self.tokens)
        return self.ahead

    def take(self) -> Token:
        token, self.ahead = self.next, None
        return token

    def deeper(self, column: int) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.fail(column, f"nested more than {MAX_DEPTH} deep")

    def expect(self, text: str, what: str) -> Token:
        if self.next.text != text or self.next.kind != "operator":
            self.fail(self.next.column, f"expected {what}, found {_found(self.next)}")
        return self.take()

    def expect_end(self) -> None:
        if self.next.kind != "end":
            self.fail(self.next.column, f"expected and, or or the end, found {_found(self.next)}")

    def either(self):
        return self._logic("or", self.both)

    def both(self):
        return self._logic("and", self.negation)

    def _logic(self, operator: str, operand):
        items = [operand()]
        while self.next.kind == "word" and self.next.text == operator:
            self.take()
            items.append(operand())
        if len(items) == 1:
            return items[0]
        return Logic(operator, tuple(self._condition(item, operator) for item in items), items[0].column)

    def _condition(self, node, operator: str):
        if kind(node) != "condition":
            self.fail(node.column, f"'{operator}' joins conditions, and {condition_text(node)} is a number:"
                                   " compare it (e.g. >= 2)")
        return node

    def negation(self):
        if self.next.kind == "word" and self.next.text == "not":
            token = self.take()
            self.deeper(token.column)
            item = self._condition(self.negation(), "not")
            self.depth -= 1
            return Negation(item, token.column)
        return self.comparison()

    def comparison(self):
        first = self.sum()
        operands, operators = [first], []
        while self.next.kind == "operator" and self.next.text in ("<", "<=", "==", "!=", ">=", ">"):
            operator = self.take()
            operands.append(self.sum())
            operators.append(operator.text)
            for node in operands[-2:]:
                if kind(node) != "number":
                    self.fail(node.column, f"'{operator.text}' compares numbers, and {condition_text(node)}"
                                           " is a condition")
        if not operators:
            return first
        return Comparison(tuple(operands), tuple(operators), first.column)

    def sum(self):
        return self._arithmetic(("+", "-"), self.product)

    def product(self):
        return self._arithmetic(("*",), self.sign)

    def _arithmetic(self, operators, operand):
        node = operand()
        while self.next.kind == "operator" and self.next.text in operators:
            operator = self.take()
            right = operand()
            for side in (node, right):
                if kind(side) != "number":
                    self.fail(side.column, f"'{operator.text}' takes numbers, and {condition_text(side)} is a"
                                           " condition")
            node = Arithmetic(operator.text, node, right, node.column)
        return node

    def sign(self):
        if self.next.kind == "operator" and self.next.text == "-":
            token = self.take()
            self.deeper(token.column)
            item = self.sign()
            self.depth -= 1
            if kind(item) != "number":
                self.fail(item.column, f"'-' takes a number, and {condition_text(item)} is a condition")
            return Arithmetic("neg", item, None, token.column)
        return self.atom()

    def atom(self):
        token = self.take()
        if token.kind == "number":
            value = float(token.text) if "." in token.text else int(token.text)
            return Number(value, token.column)
        if token.kind == "operator" and token.text == "(":
            self.deeper(token.column)
            node = self.either()
            self.depth -= 1
            self.expect(")", "')'")
            return node
        if token.kind == "word" and token.text in FEATURES:
            return self.feature(token)
        if token.kind == "word" and token.text not in ("and", "or", "not"):
            self.fail(token.column, f"unknown name {token.text!r} (the features: {', '.join(sorted(FEATURES))})")
        self.fail(token.column, f"expected a number, a feature or '(', found {_found(token)}")

    def feature(self, name: Token) -> Feature:
        spec = FEATURES[name.text]
        self.expect("(", f"'(' after {name.text}")
        values = []
        for k, argument in enumerate(spec.arguments):
            if k:
                self.expect(",", f"',' and {argument} ({_arguments(name.text)})")
            token = self.take()
            if token.kind not in ("word", "text"):
                self.fail(token.column, f"expected {argument} ({_arguments(name.text)}), found {_found(token)}")
            values.append(self.argument(name.text, argument, token))
        self.expect(")", f"')' after the arguments of {_arguments(name.text)}")
        if name.text == "eval":
            evaluator, part, game = values
            return Feature("eval", part, (evaluator, game), name.column)
        return Feature(name.text, values[0], values[1] if len(values) > 1 else None, name.column)

    def argument(self, name: str, argument: str, token: Token):
        word = token.text[1:-1] if token.kind == "text" else token.text
        if argument == "SEAT":
            reader = self.seat if name == "eval" else self.part
        else:
            reader = {"SUIT": self.suit, "CARD": self.card, "GAME": self.trump_game if name == "trumps" else self.game,
                      "NAME": self.evaluator}[argument]
        return reader(word.strip(), token.column)

    def part(self, word: str, column: int) -> int:
        if word.lower() not in PARTS:
            self.fail(column, f"unknown seat {word!r} (forehand, middlehand, rearhand or skat)")
        return PARTS.index(word.lower())

    def seat(self, word: str, column: int) -> int:
        part = self.part(word, column)
        if part == SKAT_PART:
            self.fail(column, "eval scores the ten cards of a seat (forehand, middlehand or rearhand), not the skat")
        return part

    def suit(self, word: str, column: int) -> int:
        if word.lower() not in _SUIT_WORDS:
            self.fail(column, f"unknown suit {word!r} (C, S, H, D or clubs, spades, hearts, diamonds)")
        return _SUIT_WORDS[word.lower()]

    def card(self, word: str, column: int) -> int:
        try:
            return parse_card(word)
        except CardError as error:
            self.fail(column, str(error))

    def game(self, word: str, column: int) -> int:
        if word.lower() not in GAME_NAMES:
            self.fail(column, f"unknown game {word!r} (one of {', '.join(GAME_NAMES)})")
        return GAME_NAMES.index(word.lower())

    def trump_game(self, word: str, column: int) -> int:
        game = self.game(word, column) if word.lower() in GAME_NAMES else self.suit(word, column)
        if game == NULL:
            self.fail(column, "null has no trumps (trumps takes a suit or grand)")
        return game

    def evaluator(self, word: str, column: int) -> str:
        if word not in self.evaluators:
            self.fail(column, f"unknown evaluator {word!r} (known: {', '.join(sorted(self.evaluators)) or 'none'})")
        return word


def _found(token: Token) -> str:
    return "the end" if token.kind == "end" else repr(token.text)


def _arguments(name: str) -> str:
    """A feature as it is called: ``length(SEAT, SUIT)``."""
    return f"{name}({', '.join(FEATURES[name].arguments)})"


# --- writing ----------------------------------------------------------------------------------

_BINDING = {"or": 1, "and": 2, "not": 3, "compare": 4, "+": 5, "-": 5, "*": 6, "neg": 7}


def condition_text(node) -> str:
    """The condition written the one way skatsim writes it (what the manifest records)."""
    return _written(node)[0]


def _written(node) -> tuple[str, int]:
    """(text, binding strength of its outermost operator)."""
    if isinstance(node, Number):
        return repr(node.value) if isinstance(node.value, float) else str(node.value), 9
    if isinstance(node, Feature):
        return _feature_text(node), 9
    if isinstance(node, Logic):
        strength = _BINDING[node.operator]
        return f" {node.operator} ".join(_inner(item, strength + 1) for item in node.items), strength
    if isinstance(node, Negation):
        return f"not {_inner(node.item, _BINDING['not'])}", _BINDING["not"]
    if isinstance(node, Comparison):
        strength = _BINDING["compare"]
        text = _inner(node.operands[0], strength + 1)
        for operator, operand in zip(node.operators, node.operands[1:]):
            text += f" {operator} {_inner(operand, strength + 1)}"
        return text, strength
    strength = _BINDING[node.operator]
    if node.operator == "neg":
        return f"-{_inner(node.left, strength)}", strength
    return f"{_inner(node.left, strength)} {node.operator} {_inner(node.right, strength + 1)}", strength


def _inner(node, least: int) -> str:
    text, strength = _written(node)
    return text if strength >= least else f"({text})"


def _feature_text(node: Feature) -> str:
    part = PARTS[node.part]
    if node.name == "eval":
        evaluator, game = node.argument
        return f"eval('{evaluator}', {part}, '{GAME_NAMES[game]}')"
    if node.name == "length":
        return f"length({part}, '{SUIT_LETTERS[node.argument]}')"
    if node.name == "has":
        return f"has({part}, '{format_card(node.argument)}')"
    if node.name == "trumps":
        game = GAME_NAMES[node.argument] if node.argument == GRAND else SUIT_LETTERS[node.argument]
        return f"trumps({part}, '{game}')"
    return f"{node.name}({part})"


# --- values -----------------------------------------------------------------------------------


def card_weights(feature: Feature) -> np.ndarray:
    """What each card (by id) adds to a feature that counts cards (every feature but eval): (32,) int64."""
    ranks, suits = np.arange(32) % 8, np.arange(32) // 8
    jacks = ranks == JACK
    if feature.name == "jacks":
        return jacks.astype(np.int64)
    if feature.name == "aces":
        return (ranks == ACE).astype(np.int64)
    if feature.name == "tens":
        return (ranks == TEN).astype(np.int64)
    if feature.name == "points":
        return CARD_POINTS.astype(np.int64)
    if feature.name == "length":
        return ((suits == feature.argument) & ~jacks).astype(np.int64)
    if feature.name == "trumps":
        return (jacks | ((suits == feature.argument) & (feature.argument != GRAND))).astype(np.int64)
    if feature.name == "has":
        return (np.arange(32) == feature.argument).astype(np.int64)
    raise ValueError(f"{feature.name} does not count cards")


def counts_cards(node) -> bool:
    """Whether every feature of a condition counts cards (no eval): its truth is then a function of how
    many cards of each kind each part holds."""
    return all(f.name != "eval" for f in features(node))


class HandValues:
    """The features' values over a batch of deals, (n, 4) uint32 masks: forehand, middlehand, rearhand,
    skat; ``evaluators`` maps the names eval takes to evaluators, ``scores = e(hands, seat)`` (n, 6)."""

    def __init__(self, deals: np.ndarray, evaluators=None):
        self.deals, self.evaluators, self.rows, self._scores = deals, evaluators or {}, len(deals), {}

    def feature(self, node: Feature) -> np.ndarray:
        hands = self.deals[:, node.part]
        if node.name == "eval":
            evaluator, game = node.argument
            if (evaluator, node.part) not in self._scores:
                self._scores[evaluator, node.part] = self.evaluators[evaluator](hands, node.part)
            return self._scores[evaluator, node.part][:, game]
        weights = card_weights(node)
        value = np.zeros(self.rows, dtype=np.int64)
        for weight in np.unique(weights[weights > 0]):
            mask = np.uint32(sum(1 << c for c in np.flatnonzero(weights == weight)))
            value += int(weight) * np.bitwise_count(hands & mask).astype(np.int64)
        return value >= 1 if node.name == "has" else value


_COMPARE = {"<": np.less, "<=": np.less_equal, "==": np.equal, "!=": np.not_equal, ">=": np.greater_equal,
            ">": np.greater}
_ARITHMETIC = {"+": np.add, "-": np.subtract, "*": np.multiply}


def evaluate(node, values) -> np.ndarray:
    """The truth (or the number) of ``node`` for each row of ``values`` (a :class:`HandValues`, or any
    object with ``rows`` and ``feature(node) -> array``); a condition gives a bool array of ``rows``."""
    result = _value(node, values)
    return np.broadcast_to(result, (values.rows,)) if np.ndim(result) == 0 else result


def _value(node, values):
    if isinstance(node, Number):
        return float(node.value)
    if isinstance(node, Feature):
        return values.feature(node)
    if isinstance(node, Logic):
        combine = np.logical_and if node.operator == "and" else np.logical_or
        result = _value(node.items[0], values)
        for item in node.items[1:]:
            result = combine(result, _value(item, values))
        return result
    if isinstance(node, Negation):
        return np.logical_not(_value(node.item, values))
    if isinstance(node, Comparison):
        operands = [_value(operand, values) for operand in node.operands]
        result = True
        for operator, left, right in zip(node.operators, operands, operands[1:]):
            result = np.logical_and(result, _COMPARE[operator](left, right))
        return result
    # in floats: a product of large numbers grows past what a float holds exactly, but never wraps round
    if node.operator == "neg":
        return np.negative(np.asarray(_value(node.left, values), dtype=np.float64))
    return _ARITHMETIC[node.operator](np.asarray(_value(node.left, values), dtype=np.float64),
                                      np.asarray(_value(node.right, values), dtype=np.float64))
