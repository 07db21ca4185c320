"""Payoff-matrix formats a (code literals) and f (one matrix per player) for `parse.py`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial

from verstehen.domains.game_theory.game import Game
from verstehen.domains.game_theory.parse_common import (
    _PAYOFF,
    NEVER_CLOSED,
    _build,
    _Candidate,
    _candidate,
    _Malformed,
)
from verstehen.text.tables import plural

# ---------------------------------------------------------------- a. code literals

_TOKEN_RE = re.compile(
    rf"""(?P<space>\s+)|(?P<open>[\[(])|(?P<close>[\])])|(?P<comma>[,;])
    |(?P<num>{_PAYOFF})(?![\w.])|(?P<str>'[^'\n]{{0,40}}'|"[^"\n]{{0,40}}")
    |(?P<other>[^\s\[\](),;'"]{{1,40}})""",
    re.X,
)
_MAX_OTHER = 12  # non-number tokens before a bracket is prose, not a matrix


@dataclass
class _Node:
    start: int
    end: int
    items: list[_Node] | None = None  # None for an atom
    atom: str = ""

    @property
    def is_list(self) -> bool:
        return self.items is not None

    def depth(self) -> int:
        if self.items is None:
            return 0
        return 1 + max((c.depth() for c in self.items), default=0)

    def is_number(self) -> bool:
        return self.items is None and re.fullmatch(_PAYOFF, self.atom) is not None


class _NotLiteral(Exception):
    """The bracket starts prose, not a literal."""


_MAX_DEPTH = 5  # a list of matrices of rows of cells of numbers is 4 deep


def _bracket_pairs(text: str) -> dict[int, int]:
    """Each '[' with its matching ']' (one linear pass; a stray closer drops what it skips)."""
    pairs: dict[int, int] = {}
    stack: list[tuple[str, int]] = []
    for m in re.finditer(r"[\[\]()]", text):
        ch = m.group()
        if ch in "[(":
            stack.append((ch, m.start()))
            continue
        opener = "[" if ch == "]" else "("
        while stack and stack[-1][0] != opener:
            stack.pop()
        if stack:
            _, start = stack.pop()
            if opener == "[":
                pairs[start] = m.start()
    return pairs


def _parse_list(text: str, pos: int, stop: int) -> _Node:
    """The literal in text[pos:stop + 1], opened by '[' at pos and closed at stop.

    Raises _Malformed (mismatched brackets) or _NotLiteral (prose, or nested too deep).
    """
    closers = {"[": "]", "(": ")"}
    stack = [_Node(pos, -1, [])]
    expect = ["]"]
    others = 0
    i = pos + 1
    while i <= stop:
        m = _TOKEN_RE.match(text, i, stop + 1)
        if m is None:
            raise _NotLiteral
        kind, tok = m.lastgroup, m.group()
        if kind == "open":
            if len(stack) >= _MAX_DEPTH:
                raise _NotLiteral
            node = _Node(i, -1, [])
            stack[-1].items.append(node)  # type: ignore[union-attr]
            stack.append(node)
            expect.append(closers[tok])
        elif kind == "close":
            if tok != expect[-1]:
                opener = "[" if expect[-1] == "]" else "("
                raise _Malformed(f"'{tok}' closes a '{opener}'")
            node = stack.pop()
            expect.pop()
            node.end = m.end()
            if not stack:
                return node
        elif kind in ("num", "str", "other"):
            if kind == "other":
                others += 1
                if others > _MAX_OTHER:
                    raise _NotLiteral
            atom = tok.strip("'\"").strip() if kind == "str" else tok
            stack[-1].items.append(_Node(i, m.end(), None, atom))  # type: ignore[union-attr]
        i = m.end()
    raise _Malformed(NEVER_CLOSED)


def _literal_rows(node: _Node) -> list[list[list[str] | str]]:
    """Rows of cells of a list-of-rows node; raises _Malformed."""
    rows: list[list[list[str] | str]] = []
    for i, row in enumerate(node.items or [], 1):
        if row.items is None:
            raise _Malformed(f"row {i} is {row.atom!r}, not a list of cells")
        cells: list[list[str] | str] = []
        for j, cell in enumerate(row.items, 1):
            if cell.items is None:
                cells.append([cell.atom])
            elif any(x.items is not None for x in cell.items):
                raise _Malformed(f"cell ({i}, {j}) is nested too deep")
            else:
                cells.append([x.atom for x in cell.items])
        rows.append(cells)
    return rows


def _looks_like_matrix(node: _Node) -> bool:
    """A list of rows with a pair inside, or a list of empty rows: a game attempt."""
    items = node.items or []
    if not items or not any(r.is_list for r in items):
        return False
    if all(r.is_list and not r.items for r in items):
        return True
    return node.depth() >= 3


def _is_numeric_matrix(node: _Node) -> bool:
    """A list of non-empty rows of single numbers: one player's matrix, or a near miss."""
    items = node.items or []
    return bool(items) and all(
        r.items and all(x.is_number() for x in r.items) for r in items
    )


def _attempt(text: str, pos: int) -> bool:
    """Whether the '[' at pos opens what looks like a matrix: '[[' or '[(' with a digit soon."""
    opens = re.match(r"\[\s*[\[(]", text[pos:pos + 40])
    return bool(opens and re.search(r"\d", text[pos:pos + 80]))


def _literals(text: str) -> tuple[list[_Candidate], list[_Node]]:
    """Game candidates from code literals, and the numeric matrices (for format f)."""
    found: list[_Candidate] = []
    numeric: list[_Node] = []
    pairs = _bracket_pairs(text)
    pos = 0
    while (pos := text.find("[", pos)) != -1:
        close = pairs.get(pos)
        if close is None:
            if _attempt(text, pos):  # an unclosed matrix: a failure up to the paragraph's end
                blank = re.compile(r"\n[ \t]*\n").search(text, pos)
                end = blank.start() if blank else len(text)
                found.append(_Candidate(pos, end, 0, "matrix", None, NEVER_CLOSED))
                pos = end
            else:
                pos += 1
            continue
        try:
            node = _parse_list(text, pos, close)
        except _NotLiteral:
            pos += 1
            continue
        except _Malformed as e:
            if _attempt(text, pos):
                found.append(_Candidate(pos, close + 1, 0, "matrix", None, str(e.args[0])))
                pos = close + 1
            else:
                pos += 1
            continue
        _literal_node(node, found, numeric)
        pos = node.end
    return found, numeric


def _literal_node(node: _Node, found: list[_Candidate], numeric: list[_Node]) -> None:
    """Sort a parsed literal: a list of matrices, a matrix, or one player's numbers."""
    items = node.items or []
    if node.depth() == 4 and all(x.is_list and x.depth() == 3 for x in items):
        for sub in items:  # a list of matrices
            _literal_node(sub, found, numeric)
    elif _looks_like_matrix(node):
        found.append(_candidate(node.start, node.end, 0, "matrix",
                                lambda: _build(_literal_rows(node))))
    elif _is_numeric_matrix(node):
        numeric.append(node)


# ---------------------------------------------------------------- f. one matrix per player

_P1_RE = r"player\s*(?:1|one|a)\b|\bp1\b|row\s+player|\bA\s*="
_P2_RE = r"player\s*(?:2|two|b)\b|\bp2\b|col(?:umn)?\s+player|\bB\s*="
_PLAYER_RE = re.compile(rf"(?P<one>{_P1_RE})|(?P<two>{_P2_RE})", re.I)
_LABEL_REACH = 80


def _per_player(text: str, numeric: list[_Node]) -> list[_Candidate]:
    labelled: list[tuple[int, int, _Node]] = []  # (player, label start, matrix)
    prev_end = 0
    for node in numeric:
        window_start = max(prev_end, node.start - _LABEL_REACH)
        labels = list(_PLAYER_RE.finditer(text, window_start, node.start))
        if labels:
            last = labels[-1]
            labelled.append((1 if last.group("one") else 2, last.start(), node))
        prev_end = node.end
    found = []
    k = 0
    while k + 1 < len(labelled):
        (p, start, a), (q, _, b) = labelled[k], labelled[k + 1]
        if {p, q} != {1, 2}:
            k += 1
            continue
        one, two = (a, b) if p == 1 else (b, a)
        found.append(_candidate(start, b.end, 0, "pair of matrices",
                                partial(_zip_matrices, one, two)))
        k += 2
    return found


def _zip_matrices(one: _Node, two: _Node) -> Game:
    a = [[x.atom for x in r.items or []] for r in one.items or []]
    b = [[x.atom for x in r.items or []] for r in two.items or []]
    shape_a = (len(a), len(a[0]) if a else 0)
    shape_b = (len(b), len(b[0]) if b else 0)
    for name, m in (("player 1's", a), ("player 2's", b)):
        for i, row in enumerate(m[1:], 2):
            if len(row) != len(m[0]):
                raise _Malformed(f"row {i} of {name} matrix has "
                                 f"{plural(len(row), 'entry', 'entries')}, "
                                 f"row 1 has {len(m[0])}")
    if shape_a != shape_b:
        raise _Malformed(f"player 1's matrix is {shape_a[0]}x{shape_a[1]} but player 2's is "
                         f"{shape_b[0]}x{shape_b[1]}")
    return _build([[[x, y] for x, y in zip(ra, rb, strict=True)]
                   for ra, rb in zip(a, b, strict=True)])
