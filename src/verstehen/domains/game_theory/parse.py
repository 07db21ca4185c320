"""Reading a two-player payoff matrix from a model's reply.

`parse_game(text)` returns a `Game`, or a `ParseFailure` whose `reason` says what to fix. It never
guesses: a reply it cannot read exactly is a failure, not the nearest game.

Where it looks
  1. A leading `<think>...</think>` block is dropped (`verstehen.parse.answer_text`).
  2. When the reply has an output marker -- `<OUTPUT>` (any case), `OUTPUT:`, or a line that is
     just `OUTPUT` -- only the text after the LAST marker counts, up to a `</OUTPUT>` after it.
     A matrix that only appears before the marker does not count.

What it reads (player 1 chooses the row, player 2 the column; each cell is player 1's payoff then
player 2's; numbers may be negative, decimal, or fractions such as 1/2 or -3/4; all exact):
  a. Python-style literals, anywhere (in ``` fences or not, one line or many): a list of rows of
     pairs, `[[(3, 3), (0, 5)], [(5, 0), (1, 1)]]`, `[[ [3,3], [0,5] ], ...]`, rows as tuples,
     JSON `[[[3, 3], [0, 5]], ...]`, quoted numbers. A list of such matrices
     `[[[...]], [[...]]]` counts as several matrices.
  b. Markdown tables with an optional header row and row-label columns; a cell is a pair written
     "(3, 2)", "3, 2", "3 \\ 2", "3; 2", "3 2", "[3, 2]", with markup ("**(3, 2)**", "$3,2$")
     ignored. LaTeX `matrix`/`array`/`tabular` environments are read the same way (`&` between
     cells, `\\\\` between rows).
  c. Plain lines, one row per line, of bracketed pairs "(3,2) (0,5)" or "(3,2), (0,5)", each
     line optionally led by a bullet and a row label ("Up: (3,2) (0,5)", "Row 1: ..."), at least
     two such lines, one of them with two or more cells.
  d. Outcome statements "Actions (A, B) leads to payoffs (4, 7)" (also "(A, B): (4, 7)",
     "(A, B) -> (4, 7)", "... gives/yields/results in ..."), at least two together: rows are player
     1's actions and columns player 2's, each in order of first appearance; when both players
     have the same set of actions, the columns follow the rows' order, so a symmetric game stays
     symmetric. Every profile needs exactly one payoff pair; a profile stated again starts a new
     statement of the matrix.
  e. Pairs in prose after "row by row" / "row-major" (within that paragraph): the shape is an
     "m x n" written in the paragraph, else a square one when the count is a square.
  f. Two matrices of single numbers labelled for each player: "Player 1: [[3, 0], [5, 1]]
     Player 2: [[3, 5], [0, 1]]" (also "P1"/"P2", "row player"/"column player", "A = "/"B = "),
     in either order.

Which matrix, when there are several: every matrix-shaped block in that text is a candidate,
well-formed or not (blocks inside a larger one are part of it). The LAST candidate is the
answer. When it is malformed the reply fails with its problem (e.g. "row 2 has 3 cells, row 1 has
2"), even when an earlier draft was fine: a reply's final matrix is what it answers, and falling
back to a draft would be guessing. Things that are not matrices never count, so they cannot
override the answer: a list of equilibria `[(0, 0), (1, 1)]`, one "(3, 2)" in a sentence, a
single outcome statement, a table or list of single numbers, a single line of pairs.
Caveat: a block that IS matrix-shaped still counts, so a reply that ends with, say, a table
whose cells are payoff pairs of its equilibria is read as that table. A table cell like "3/2"
is refused as ambiguous (the fraction, or payoffs 3 and 2).
`parse_games(text)` returns all candidates in order (for answers that are a sequence of
matrices, such as iterated elimination), failing when any of them is malformed.

A 1x1 matrix is a (trivial) game and is accepted in the explicit formats a, b and f; formats c-e
need at least two cells. Empty rows, ragged rows, cells with other than two numbers, non-numbers
and zero denominators are failures naming the row and column (1-based) and the block's line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verstehen.domains.game_theory.game import Game
from verstehen.domains.game_theory.parse_common import NEVER_CLOSED, _Candidate
from verstehen.domains.game_theory.parse_literal import _literals, _per_player
from verstehen.domains.game_theory.parse_text import (
    _latex,
    _outcomes,
    _plain_lines,
    _row_by_row,
    _tables,
)
from verstehen.reading import answer_regions, answer_text, ends_inside_reasoning


@dataclass(frozen=True)
class ParseFailure:
    """No game could be read; `reason` says what is wrong, in words a user can act on;
    `cut_off` when the reply stopped before its matrix was whole (graded `truncated`)."""

    reason: str
    cut_off: bool = False


# ---------------------------------------------------------------- putting it together

_FLAG_RE = re.compile(r"(?i:<\s*output\s*>)|\bOUTPUT\s*:|^[ \t#*_>]*OUTPUT[ \t*_]*$", re.M)
_CLOSE_MARK_RE = re.compile(r"<\s*/\s*output\s*>", re.I)
_EXAMPLE = "[[(3, 3), (0, 5)], [(5, 0), (1, 1)]]"
# what may stand between a matrix and a flag written after it, or between the matrices of a
# list: space, punctuation, a fence's backticks, LaTeX's $$, emphasis
_BETWEEN = " \t\r\n`,.;:$*_"
# between two matrices: the second offered in place of the first ("or", "Alternatively,")
_ALTERNATIVE_RE = re.compile(r"[\s`*_>,.:;-]*(?:or|either|alternatively)\b", re.I)


def _scan(text: str) -> tuple[list[_Candidate], str | None]:
    """Candidates in reading order (nested ones dropped), and a near-miss hint."""
    literals, numeric = _literals(text)
    tables, near_tables = _tables(text)
    latex, near_latex = _latex(text)
    found = [*literals, *_per_player(text, numeric), *tables, *latex, *_plain_lines(text),
             *_outcomes(text), *_row_by_row(text)]
    kept: list[_Candidate] = []
    for c in sorted(found, key=lambda c: (c.start - c.end, c.priority, c.start)):
        if all(c.end <= k.start or c.start >= k.end for k in kept):
            kept.append(c)
    kept.sort(key=lambda c: c.start)
    hint = None
    if numeric:
        last = numeric[-1]
        shown = " ".join(text[last.start:last.end].split())
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        hint = (f"{shown} has one number per cell, expected pairs (player 1's payoff, "
                "player 2's payoff); label separate matrices 'Player 1:' and 'Player 2:'")
    else:
        hint = near_tables or near_latex
    return kept, hint


def _located(text: str, offset: int, c: _Candidate) -> str:
    line = text.count("\n", 0, offset + c.start) + 1
    return f"{c.problem} (in the {c.what} on line {line})"


def _anchored(region: str, kept: list[_Candidate]) -> list[_Candidate]:
    """The run of matrices that ends where the region does (a flag written after the answer),
    or [] when the region ends in something else."""
    if not kept or region[kept[-1].end:].strip(_BETWEEN):
        return []
    run = [kept[-1]]
    for c in reversed(kept[:-1]):
        if region[c.end:run[0].start].strip(_BETWEEN):
            break
        run.insert(0, c)
    return run


def _candidates(text: str) -> tuple[str, int, list[_Candidate]] | ParseFailure:
    if ends_inside_reasoning(text):
        return ParseFailure("cut off: the reply ends inside its reasoning block (<think> is "
                            "never closed) before it wrote a matrix", cut_off=True)
    body = answer_text(text)
    if not body:
        return ParseFailure("no payoff matrix found: the reply is empty")
    regions = answer_regions(body, _FLAG_RE, _CLOSE_MARK_RE)
    hint = None
    for region in regions:
        part = body[region.start:region.end]
        kept, near = _scan(part)
        hint = hint or near
        if region.anchored:
            kept = _anchored(part, kept)
        if kept:
            last = kept[-1]
            if (last.game is None and last.problem == NEVER_CLOSED
                    and not body[region.start + last.end:].strip()):
                return ParseFailure("cut off: the reply ends inside its last matrix (a bracket "
                                    "is never closed)", cut_off=True)
            return body, region.start, kept
    if len(regions) == 1:
        reason = "no payoff matrix found"
    elif not body[regions[0].start:regions[0].end].strip() and len(regions) == 2:
        return ParseFailure("no payoff matrix found: nothing follows the last <OUTPUT> marker")
    else:
        reason = "no payoff matrix found after the last <OUTPUT> marker"
        if _scan(body[:regions[-1].end])[0]:
            reason += " (the matrix before the marker does not count)"
    if hint:
        return ParseFailure(f"{reason}: {hint}")
    return ParseFailure(f"{reason}: write it as {_EXAMPLE}, player 1's payoff first in each cell")


def parse_game(text: str) -> Game | ParseFailure:
    """The payoff matrix a reply gives, or why none could be read (rules in the module doc)."""
    got = _candidates(text)
    if isinstance(got, ParseFailure):
        return got
    body, offset, kept = got
    last = kept[-1]
    if last.game is None:
        return ParseFailure(_located(body, offset, last))
    if len(kept) > 1 and kept[-2].game not in (None, last.game) and _ALTERNATIVE_RE.match(
            body, offset + kept[-2].end, offset + last.start):
        return ParseFailure("two different matrices are offered as alternatives: a reply "
                            "answers with one")
    return last.game


def parse_games(text: str) -> list[Game] | ParseFailure:
    """Every matrix the reply gives, in order (a sequence such as iterated elimination).

    Same region and formats as `parse_game`; fails when none is found or any is malformed.
    """
    got = _candidates(text)
    if isinstance(got, ParseFailure):
        return got
    body, offset, kept = got
    for k, c in enumerate(kept, 1):
        if c.game is None:
            return ParseFailure(f"matrix {k} of {len(kept)}: {_located(body, offset, c)}")
    return [c.game for c in kept if c.game is not None]
