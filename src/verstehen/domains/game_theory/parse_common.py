"""Shared pieces of the payoff-matrix reader (`parse.py`): exact numbers, building a `Game`
from rows of cells, and the candidate record every format produces."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from verstehen.domains.game_theory.game import Game

NEVER_CLOSED = "a bracket is never closed"


class _Malformed(Exception):
    """A matrix-shaped block with a problem; args[0] is the problem."""


@dataclass(frozen=True)
class _Candidate:
    start: int
    end: int
    priority: int  # lower wins when two candidates cover the same span
    what: str  # "matrix", "table", ... for messages
    game: Game | None
    problem: str | None


# ---------------------------------------------------------------- numbers

_UNSIGNED = r"(?:\d+(?:\.\d*)?|\.\d+)"
_NUM = rf"[-+−]?{_UNSIGNED}(?:/{_UNSIGNED})?"
# In a code literal "1 / 2" is a fraction too; in a table cell "3 / 2" is ambiguous and refused.
_CODE_NUM = rf"[-+−]?{_UNSIGNED}(?:\s*/\s*{_UNSIGNED})?"
# A payoff written as a small sum or difference, "3+100", "2 - 5": the operator spaced alike on
# both sides, so "3 -2" stays two numbers (a pair written without its comma).
_SUM = rf"{_CODE_NUM}(?:(?:\s+[-+−]\s+|[-+−]){_UNSIGNED})+"
_TABLE_SUM = rf"{_NUM}(?:(?:\s+[-+−]\s+|[-+−]){_UNSIGNED})+"
# one payoff in a cell: a number or a sum of numbers
_PAYOFF = rf"(?:{_SUM}|{_CODE_NUM})"
_TERM_RE = re.compile(rf"[-+]?{_UNSIGNED}(?:/{_UNSIGNED})?")
_MAX_DIGITS = 60


@lru_cache(maxsize=4096)  # Fraction() is slow, and replies repeat a few small payoffs
def _fraction(text: str) -> Fraction:
    """The exact value of a `_PAYOFF` text (a number, a fraction or a sum of numbers); raises
    _Malformed on a zero denominator."""
    s = re.sub(r"\s+", "", text).replace("−", "-")
    if len(s) > _MAX_DIGITS:
        raise _Malformed(f"the number {text!r} is too long")
    value = Fraction(0)
    for term in _TERM_RE.findall(s):
        num, _, den = term.partition("/")
        part = Fraction(num)
        if den:
            d = Fraction(den)
            if d == 0:
                raise _Malformed(f"{text!r} divides by zero")
            part /= d
        value += part
    return value


def _count(n: int) -> str:
    return {0: "no numbers", 1: "one number"}.get(n, f"{n} numbers")


def _build(rows: list[list[list[str] | str]]) -> Game:
    """A game from rows of cells; a cell is its number texts, or a str when unreadable.

    Raises _Malformed naming the first problem: no rows, an empty row, a ragged row, a cell
    that is not two numbers.
    """
    if not rows:
        raise _Malformed("the matrix has no rows")
    for i, row in enumerate(rows, 1):
        if not row:
            raise _Malformed(f"row {i} is empty")
    width = len(rows[0])
    for i, row in enumerate(rows[1:], 2):
        if len(row) != width:
            cells = "cell" if len(row) == 1 else "cells"
            raise _Malformed(f"row {i} has {len(row)} {cells}, row 1 has {width}")
    out = []
    for i, row in enumerate(rows, 1):
        payoffs = []
        for j, cell in enumerate(row, 1):
            where = f"cell ({i}, {j})"
            if isinstance(cell, str) and not cell.strip():
                raise _Malformed(f"{where} is empty")
            if isinstance(cell, str):
                raise _Malformed(f"{where} reads {cell!r}, expected a pair of numbers like (3, 2)")
            if len(cell) != 2:
                raise _Malformed(f"{where} has {_count(len(cell))}, expected a pair "
                                 "(player 1's payoff, player 2's payoff)")
            bad = [x for x in cell if not re.fullmatch(_PAYOFF, x.strip())]
            if bad:
                raise _Malformed(f"{where} holds {bad[0]!r}, not a number")
            try:
                payoffs.append((_fraction(cell[0]), _fraction(cell[1])))
            except _Malformed as e:
                raise _Malformed(f"{where}: {e.args[0]}") from None
        out.append(tuple(payoffs))
    return Game(tuple(out))


def _candidate(start: int, end: int, priority: int, what: str,
               make: Callable[[], Game]) -> _Candidate:
    try:
        return _Candidate(start, end, priority, what, make(), None)
    except _Malformed as e:
        return _Candidate(start, end, priority, what, None, str(e.args[0]))
