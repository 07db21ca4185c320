"""A two-player normal-form game with exact rational payoffs, and how prompts show it.

Player 1 chooses a row, player 2 a column; strategy indices are 0-based in code and 1-based
(or named) in prompts. Payoffs are `Fraction`s so every check is exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

Payoff = tuple[Fraction, Fraction]
GameJson = list[list[list[str]]]  # `Game.to_json`'s form: rows of [p1, p2] fraction strings


@lru_cache(maxsize=4096)
def _exact(value: int | str | Fraction) -> Fraction:
    return Fraction(value)


def to_fraction(value: Any) -> Fraction:
    """An exact value from an int, Fraction, "a/b" string or float (nearest with denominator
    up to 10**6, so 0.1 is 1/10 and 1/3 as a float is 1/3)."""
    if isinstance(value, float):
        return Fraction(value).limit_denominator(10**6)
    if isinstance(value, Fraction):
        return value
    return _exact(value)  # Fraction() is slow and games repeat a few small payoffs


def fraction_text(value: Fraction) -> str:
    """An integer as "3", anything else as "3/2"."""
    if value.denominator == 1:
        return str(value.numerator)
    return f"{value.numerator}/{value.denominator}"


@dataclass(frozen=True)
class Game:
    """Payoffs `cells[i][j] = (player 1's payoff, player 2's payoff)` for row i, column j."""

    cells: tuple[tuple[Payoff, ...], ...]

    def __post_init__(self) -> None:
        if not self.cells or not self.cells[0]:
            raise ValueError("a game needs at least one row and one column")
        if len({len(row) for row in self.cells}) != 1:
            raise ValueError("every row of a game needs the same number of columns")

    @classmethod
    def of(cls, rows: Sequence[Sequence[Sequence[Any]]]) -> Game:
        """Build from nested rows of (p1, p2) pairs of ints, Fractions, floats or "a/b" strings."""
        return cls(tuple(tuple((to_fraction(a), to_fraction(b)) for a, b in row) for row in rows))

    @classmethod
    def from_json(cls, data: Sequence[Sequence[Sequence[str]]]) -> Game:
        """Inverse of `to_json`."""
        return cls.of(data)

    def to_json(self) -> GameJson:
        """Payoffs as fraction strings, exact and JSON-safe."""
        return [[[fraction_text(a), fraction_text(b)] for a, b in row] for row in self.cells]

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, columns)."""
        return len(self.cells), len(self.cells[0])

    def payoff(self, player: int, row: int, col: int) -> Fraction:
        """Player 1's or player 2's payoff at (row, col)."""
        return self.cells[row][col][player - 1]

    def with_cell(self, row: int, col: int, payoff: Payoff) -> Game:
        """A copy with one cell replaced."""
        cells = [list(r) for r in self.cells]
        cells[row][col] = (Fraction(payoff[0]), Fraction(payoff[1]))
        return Game(tuple(tuple(r) for r in cells))

    def transpose(self) -> Game:
        """The same game with the players' roles swapped."""
        m, n = self.shape
        return Game(tuple(tuple((self.cells[i][j][1], self.cells[i][j][0]) for i in range(m))
                          for j in range(n)))

    def permute(self, rows: Sequence[int], cols: Sequence[int]) -> Game:
        """Relabel strategies: new row k is old row rows[k], new column k is old column cols[k]."""
        return Game(tuple(tuple(self.cells[i][j] for j in cols) for i in rows))

    def python_literal(self) -> str:
        """`[[(3, 3), (0, 5)], [(5, 0), (1, 1)]]`, the format the paper's generate prompts use."""
        def cell(p: Payoff) -> str:
            return f"({fraction_text(p[0])}, {fraction_text(p[1])})"
        return "[" + ", ".join("[" + ", ".join(cell(p) for p in row) + "]"
                               for row in self.cells) + "]"

    def table(self, row_names: Sequence[str] | None = None,
              col_names: Sequence[str] | None = None) -> str:
        """A markdown table; each cell is (player 1's payoff, player 2's payoff)."""
        m, n = self.shape
        rows = list(row_names or [f"R{i + 1}" for i in range(m)])
        cols = list(col_names or [f"C{j + 1}" for j in range(n)])
        lines = ["| | " + " | ".join(cols) + " |", "|---" * (n + 1) + "|"]
        for name, row in zip(rows, self.cells, strict=True):
            lines.append(f"| {name} | " + " | ".join(
                f"({fraction_text(a)}, {fraction_text(b)})" for a, b in row) + " |")
        return "\n".join(lines)
