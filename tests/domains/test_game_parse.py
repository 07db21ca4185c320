"""Reading payoff matrices from model replies: every format, messy replies, every failure."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verstehen.domains.game_theory.game import Game
from verstehen.domains.game_theory.parse import ParseFailure, parse_game, parse_games

PD = Game.of([[(3, 3), (0, 5)], [(5, 0), (1, 1)]])  # prisoner's dilemma
UL = Game.of([[(3, 2), (0, 5)], [(5, 0), (1, 1)]])
COORD = Game.of([[(1, 1), (0, 0)], [(0, 0), (1, 1)]])


def game(text: str) -> Game:
    got = parse_game(text)
    assert isinstance(got, Game), got
    return got


def failure(text: str) -> str:
    got = parse_game(text)
    assert isinstance(got, ParseFailure), got
    return got.reason


# ---------------------------------------------------------------- a. code literals

LITERALS = [
    ("[[(3, 3), (0, 5)], [(5, 0), (1, 1)]]", PD),
    ("[[(3,3),(0,5)],[(5,0),(1,1)]]", PD),
    ("[[ (3,3), (0,5) ],\n [ (5,0), (1,1) ]]", PD),  # the benchmark's requested layout
    ("```\n[[ (3, 3), (0, 5) ],\n [ (5, 0), (1, 1) ]]\n```", PD),
    ("```python\npayoffs = [\n    [(3, 3), (0, 5)],\n    [(5, 0), (1, 1)],\n]\n```", PD),
    ("[[[3, 3], [0, 5]], [[5, 0], [1, 1]]]", PD),  # lists, not tuples
    ("[((3, 3), (0, 5)), ((5, 0), (1, 1))]", PD),  # rows as tuples
    ('{"matrix": [[[3, 3], [0, 5]], [[5, 0], [1, 1]]]}', PD),  # JSON
    ("[[('3', '3'), ('0', '5')], [('5', '0'), ('1', '1')]]", PD),  # quoted numbers
    ("[[(3 3) (0 5)] [(5 0) (1 1)]]", PD),  # commas left out
    ("[[(-1, 2), (0.5, -3/4)], [(1/2, 0), (-2.25, 1 / 3)]]",
     Game.of([[(-1, 2), ("1/2", "-3/4")], [("1/2", 0), ("-9/4", "1/3")]])),
    ("[[(−1, 2), (+3, −4)]]", Game.of([[(-1, 2), (3, -4)]])),  # unicode minus, plus sign
    ("[[(7, 7)]]", Game.of([[(7, 7)]])),  # 1x1 is a (trivial) game
    ("[[(1, 2), (3, 4), (5, 6)]]", Game.of([[(1, 2), (3, 4), (5, 6)]])),  # 1x3
    ("[[(1, 2)], [(3, 4)], [(5, 6)]]", Game.of([[(1, 2)], [(3, 4)], [(5, 6)]])),  # 3x1
]


@pytest.mark.parametrize(("text", "expected"), LITERALS)
def test_code_literals(text: str, expected: Game) -> None:
    assert game(text) == expected


def test_three_by_three_literal() -> None:
    text = "[[ (1,2), (3,4), (5,6) ],\n [ (7,8), (9,10), (11,12) ],\n [ (0,0), (1,1), (2,2) ]]"
    assert game(text) == Game.of([[(1, 2), (3, 4), (5, 6)], [(7, 8), (9, 10), (11, 12)],
                                  [(0, 0), (1, 1), (2, 2)]])


def test_decimals_are_exact() -> None:
    g = game("[[(0.1, 0.2), (0.3, 1.5)]]")
    assert g.cells[0][0] == (Fraction(1, 10), Fraction(1, 5))
    assert g.cells[0][1] == (Fraction(3, 10), Fraction(3, 2))


# ---------------------------------------------------------------- b. tables

TABLE = """|       | Left   | Right  |
|-------|--------|--------|
| Up    | (3, 2) | (0, 5) |
| Down  | (5, 0) | (1, 1) |"""

TABLES = [
    TABLE,
    TABLE.replace("(3, 2)", "3, 2").replace("(0, 5)", "0, 5"),
    TABLE.replace("(3, 2)", "3 \\ 2").replace("(5, 0)", "5 \\ 0"),
    TABLE.replace("(3, 2)", "3; 2").replace("(1, 1)", "1; 1"),
    TABLE.replace("(3, 2)", "**(3, 2)**").replace("(1, 1)", "*1, 1*"),
    TABLE.replace("(3, 2)", "$(3, 2)$").replace("(0, 5)", "`0 , 5`"),
    TABLE.replace("(3, 2)", "3 2").replace("(0, 5)", "[0, 5]"),
    # no leading/trailing pipes, alignment colons
    "| P1 \\ P2 | L | R |\n|:---:|:---:|:---:|\n| **U** | (3, 2) | (0, 5) |\n"
    "| **D** | (5, 0) | (1, 1) |",
    "P1 \\ P2 | L | R\n---|---|---\nU | 3,2 | 0,5\nD | 5,0 | 1,1",
    # no header at all, no labels
    "| (3, 2) | (0, 5) |\n| (5, 0) | (1, 1) |",
    # numbered header and numbered row labels
    "| | 1 | 2 |\n|---|---|---|\n| 1 | 3, 2 | 0, 5 |\n| 2 | 5, 0 | 1, 1 |",
    # a sub-header row and two label columns
    "| | | Player 2 | |\n|---|---|---|---|\n| | | L | R |\n| Player 1 | U | 3, 2 | 0, 5 |\n"
    "| | D | 5, 0 | 1, 1 |",
]


@pytest.mark.parametrize("text", TABLES)
def test_markdown_tables(text: str) -> None:
    assert game(text) == UL


LATEX = [
    r"\begin{pmatrix} (3,2) & (0,5) \\ (5,0) & (1,1) \end{pmatrix}",
    r"$$\begin{array}{c|cc} & L & R \\ \hline U & 3,2 & 0,5 \\ D & 5,0 & 1,1 \end{array}$$",
    r"\begin{tabular}{lcc} & \textbf{L} & \textbf{R} \\ \textbf{U} & $(3, 2)$ & $(0, 5)$ \\"
    r" \textbf{D} & $(5, 0)$ & $(1, 1)$ \end{tabular}",
]


@pytest.mark.parametrize("text", LATEX)
def test_latex_matrices(text: str) -> None:
    assert game(text) == UL


def test_latex_fractions() -> None:
    text = r"\begin{bmatrix} (\frac{1}{2}, -\frac{3}{4}) & (0, 1) \end{bmatrix}"
    assert game(text) == Game.of([[("1/2", "-3/4"), (0, 1)]])


# ---------------------------------------------------------------- c. plain lines

PLAIN = [
    "(3,2) (0,5)\n(5,0) (1,1)",
    "(3, 2), (0, 5)\n(5, 0), (1, 1)",
    "Up: (3,2) (0,5)\nDown: (5,0) (1,1)",
    "Up (3,2) (0,5)\nDown (5,0) (1,1)",
    "Row 1: (3, 2), (0, 5)\nRow 2: (5, 0), (1, 1)",
    "- **Up**: (3, 2), (0, 5)\n- **Down**: (5, 0), (1, 1)",
    "[(3, 2), (0, 5)],\n[(5, 0), (1, 1)]",
    "(3; 2) | (0; 5)\n(5; 0) | (1; 1)",
]


@pytest.mark.parametrize("text", PLAIN)
def test_plain_lines(text: str) -> None:
    assert game(text) == UL


# ---------------------------------------------------------------- d. outcome statements

BENCHMARK_STYLE = """We both say "A" or "B" at the same moment. In each tuple my action comes first,
and my payoff comes first.
Actions (A, A) leads to payoffs (2, 6)
Actions (A, B) leads to payoffs (0, 1)
Actions (B, A) leads to payoffs (3, 3)
Actions (B, B) leads to payoffs (-2, 4)"""


def test_benchmark_outcome_statements() -> None:
    # The format of the Potemkin benchmark's matrix items (our own numbers).
    assert game(BENCHMARK_STYLE) == Game.of([[(2, 6), (0, 1)], [(3, 3), (-2, 4)]])


OUTCOMES = [
    "(Cooperate, Cooperate) -> (3, 3)\n(Cooperate, Defect) -> (0, 5)\n"
    "(Defect, Cooperate) -> (5, 0)\n(Defect, Defect) -> (1, 1)",
    "(Cooperate, Cooperate): (3, 3); (Cooperate, Defect): (0, 5); "
    "(Defect, Cooperate): (5, 0); (Defect, Defect): (1, 1).",
    "- (**Cooperate**, **Cooperate**) gives payoffs of (3, 3)\n"
    "- (**Cooperate**, **Defect**) gives payoffs of (0, 5)\n"
    "- (**Defect**, **Cooperate**) yields (5, 0)\n- (**Defect**, **Defect**) → (1, 1)",
    # defect first: columns follow the rows' order because both players share the actions
    "(Defect, Defect) -> (1, 1)\n(Defect, Cooperate) -> (5, 0)\n"
    "(Cooperate, Defect) -> (0, 5)\n(Cooperate, Cooperate) -> (3, 3)",
]


@pytest.mark.parametrize("text", OUTCOMES[:3])
def test_outcome_statements(text: str) -> None:
    assert game(text) == PD


def test_outcome_order_is_first_appearance() -> None:
    assert game(OUTCOMES[3]) == Game.of([[(1, 1), (5, 0)], [(0, 5), (3, 3)]])


def test_outcomes_with_different_action_sets() -> None:
    text = ("(Up, Right) -> (0, 5)\n(Up, Left) -> (3, 2)\n(Down, Left) -> (5, 0)\n"
            "(Down, Right) -> (1, 1)")
    # Columns in order of first appearance: Right, then Left.
    assert game(text) == Game.of([[(0, 5), (3, 2)], [(1, 1), (5, 0)]])


def test_outcome_labels_ignore_case() -> None:
    text = ("(Up, Left) -> (3, 2)\n(up, right) -> (0, 5)\n(Down, left) -> (5, 0)\n"
            "(DOWN, RIGHT) -> (1, 1)")
    assert game(text) == UL


# ---------------------------------------------------------------- e. row by row in prose

def test_row_by_row_square() -> None:
    text = "Reading the matrix row by row, the payoffs are (3, 2), (0, 5), (5, 0) and (1, 1)."
    assert game(text) == UL


def test_row_by_row_with_shape() -> None:
    text = "A 2x3 game; row by row: (1, 1), (0, 0), (2, 2), (3, 3), (4, 4), (5, 5)."
    assert game(text) == Game.of([[(1, 1), (0, 0), (2, 2)], [(3, 3), (4, 4), (5, 5)]])


# ---------------------------------------------------------------- f. one matrix per player

PER_PLAYER = [
    "Player 1: [[3, 0], [5, 1]] Player 2: [[3, 5], [0, 1]]",
    "Player 1's payoffs:\n[[3, 0], [5, 1]]\nPlayer 2's payoffs:\n[[3, 5], [0, 1]]",
    "Player 2: [[3, 5], [0, 1]]\nPlayer 1: [[3, 0], [5, 1]]",
    "A = [[3, 0], [5, 1]]\nB = [[3, 5], [0, 1]]",
    "Row player: [[3, 0], [5, 1]]; column player: [[3, 5], [0, 1]]",
]


@pytest.mark.parametrize("text", PER_PLAYER)
def test_one_matrix_per_player(text: str) -> None:
    assert game(text) == PD


# ---------------------------------------------------------------- where to look

def test_output_marker_only_text_after_the_last_counts() -> None:
    text = ("Draft: [[(9, 9), (9, 9)], [(9, 9), (9, 9)]]\nI'll answer after <OUTPUT> as asked.\n"
            "<OUTPUT>\n[[(3, 3), (0, 5)], [(5, 0), (1, 1)]]")
    assert game(text) == PD


@pytest.mark.parametrize("text", [
    "<OUTPUT>[[(1,1),(0,0)],[(0,0),(1,1)]]</OUTPUT>\nCheck: [[(2, 2)]] is not it.",
    "<output>\n[[(1,1),(0,0)],[(0,0),(1,1)]]\n</output>",
    "reasoning [[(2, 2), (3, 3)]]\nOUTPUT: [[(1,1),(0,0)],[(0,0),(1,1)]]",
    "reasoning [[(2, 2), (3, 3)]]\n**OUTPUT:**\n[[(1,1),(0,0)],[(0,0),(1,1)]]",
    "reasoning [[(2, 2), (3, 3)]]\nOUTPUT\n[[(1,1),(0,0)],[(0,0),(1,1)]]",
    "<think>[[(9,9),(9,9)],[(9,9),(9,9)]]</think>\n[[(1,1),(0,0)],[(0,0),(1,1)]]",
])
def test_marker_variants(text: str) -> None:
    assert game(text) == COORD


def test_iterated_elimination_sequence() -> None:
    text = ("<OUTPUT>\n[[ (3,1), (0,0), (1,2) ],\n [ (1,1), (2,3), (0,1) ]],\n"
            "[[ (3,1), (1,2) ],\n [ (1,1), (0,1) ]],\n[[ (3,1), (1,2) ]]")
    first = Game.of([[(3, 1), (0, 0), (1, 2)], [(1, 1), (2, 3), (0, 1)]])
    second = Game.of([[(3, 1), (1, 2)], [(1, 1), (0, 1)]])
    last = Game.of([[(3, 1), (1, 2)]])
    assert parse_games(text) == [first, second, last]
    assert game(text) == last  # the last matrix is the answer
    assert parse_games("[[[(1, 1)]], [[(2, 2), (3, 3)]]]") == [Game.of([[(1, 1)]]),
                                                             Game.of([[(2, 2), (3, 3)]])]
    assert parse_game("[[((1, 1), (2, 2))]]") == Game.of([[(1, 1), (2, 2)]])  # a list of one


def test_parse_games_fails_on_any_bad_matrix() -> None:
    got = parse_games("[[(1, 1), (2, 2)]], [[(1, 1), 2]]")
    assert isinstance(got, ParseFailure)
    assert got.reason.startswith("matrix 2 of 2: cell (1, 2) has one number")
    assert isinstance(parse_games("no matrix here"), ParseFailure)


# ---------------------------------------------------------------- messy replies

MESSY_FINAL_DIFFERENT = """Let's construct a game where Player 1 has a strictly dominant strategy.

First try:
[[(3, 3), (0, 5)], [(5, 0), (1, 1)]]

Hmm, here Player 1's row 2 gives 5 > 3 and 1 > 0, so row 2 dominates. But the constraint says \
the payoff for (1, 1) must be 2, so let me fix it:

[[(3, 3), (0, 5)], [(5, 0), (2, 2)]]

Check: 5 > 3 and 2 > 0. The unique equilibrium is (Down, Right) with payoffs (2, 2)."""


def test_restated_matrix_final_one_wins() -> None:
    assert game(MESSY_FINAL_DIFFERENT) == Game.of([[(3, 3), (0, 5)], [(5, 0), (2, 2)]])


MESSY_TABLE = """Sure! Here's a classic example.

**Prisoner's Dilemma**

| | Cooperate | Defect |
|---|---|---|
| **Cooperate** | (3, 3) | (0, 5) |
| **Defect** | (5, 0) | (1, 1) |

Defecting gives 5 > 3 against cooperation and 1 > 0 against defection, so (Defect, Defect) is \
the unique Nash equilibrium [see Osborne, ch. 2]. Expected payoffs:

| Strategy | Payoff vs 50/50 |
|---|---|
| Cooperate | 1.5 |
| Defect | 3 |

Pure equilibria: [(1, 1)]. Let me know if you'd like a 3x3 version!"""


def test_prose_and_other_tables_around_the_matrix() -> None:
    # The expected-payoff table and the equilibrium list are not matrices, so they don't count.
    assert game(MESSY_TABLE) == PD


MESSY_NUMBERS = """We need Player 2 to mix 0.4/0.6. Player 1 must be indifferent: 0.4*a + 0.6*b = \
0.4*c + 0.6*d. Take a = 3, b = 0, c = 0, d = 2: 1.2 = 1.2. Similarly for Player 2 with (x, y).
- (1, 1) is not an equilibrium.
- (0, 0) isn't either.

<OUTPUT>
```
[[ (3, 1), (0, 0) ],
 [ (0, 0), (2, 1) ]]
```"""


def test_reasoning_with_numbers_and_pairs() -> None:
    assert game(MESSY_NUMBERS) == Game.of([[(3, 1), (0, 0)], [(0, 0), (2, 1)]])


def test_template_echoed_before_answer() -> None:
    text = ("The format is [[ (A1,B1), (A2,B2) ], [ (A3,B3), (A4,B4) ]].\n"
            "[[ (3,1), (0,0) ], [ (1,1), (2,3) ]]")
    assert game(text) == Game.of([[(3, 1), (0, 0)], [(1, 1), (2, 3)]])


def test_lines_then_equilibrium_list() -> None:
    text = "Up: (3,2) (0,5)\nDown: (5,0) (1,1)\n\nEquilibria:\n- (1, 1)\n- (0, 0)"
    assert game(text) == UL


def test_last_of_several_formats() -> None:
    text = TABLE + "\n\nIn code:\n[[(3, 3), (0, 5)], [(5, 0), (1, 1)]]"
    assert game(text) == PD


DRAFT = ("Let me build it step by step. A first draft would be [[(3, 3), (0, 5)], [(5, 0), "
         "(1, 1)]], but player 1's payoffs repeat, so I change one cell.\n\n")


@pytest.mark.parametrize("final", [
    "$$\n\\begin{pmatrix}\n(3, 2) & (0, 5) \\\\\n(5, 0) & (1, 1)\n\\end{pmatrix}\n$$",
    "**Final output:**\n\n[[(3, 2), (0, 5)], [(5, 0), (1, 1)]]",
    "**Payoff matrix**\n\n| | C1 | C2 |\n|---|---|---|\n| R1 | (3, 2) | (0, 5) |\n"
    "| R2 | (5, 0) | (1, 1) |",
    "```python\n[[(3, 2), (0, 5)], [(5, 0), (1, 1)]]\n```",
])
def test_a_draft_in_the_reasoning_then_the_final_matrix(final: str) -> None:
    """The draft (the prisoner's dilemma) comes first; the final matrix, in any format, wins."""
    assert game(DRAFT + final) == UL


def test_markdown_links_and_citations_are_not_matrices() -> None:
    text = "See [the notes](http://x.y) [1] and [[Wiki]].\n[[(1,1),(0,0)],[(0,0),(1,1)]] [2]"
    assert game(text) == COORD


# ---------------------------------------------------------------- failures

FAILURES = [
    ("", "no payoff matrix found: the reply is empty"),
    ("   \n ", "no payoff matrix found: the reply is empty"),
    ("I think the answer is cooperation.", "no payoff matrix found: write it as"),
    ("So (Up, Left) gives (3, 2), which is best.", "no payoff matrix found"),
    ("Up: (3,2) (0,5)", "no payoff matrix found"),  # one line of pairs is not a matrix
    ("<OUTPUT>", "no payoff matrix found: nothing follows the last <OUTPUT> marker"),
    ("[[(1,1),(0,0)],[(0,0),(1,1)]]\nThat misses a condition, so:\n<OUTPUT>\nSee above.",
     "no payoff matrix found after the last <OUTPUT> marker (the matrix before the marker"),
    ("[[3, 0], [5, 1]]", "no payoff matrix found: [[3, 0], [5, 1]] has one number per cell"),
    ("| | L | R |\n|---|---|---|\n| U | 3 | 0 |\n| D | 5 | 1 |",
     "no payoff matrix found: a table has one number per cell"),
    ("| | L | R |\n|---|---|---|\n| U | 3/2 | 0/5 |\n| D | 5/0 | 1/1 |",
     "no payoff matrix found: table cells like '3/2' are ambiguous"),
    ("[[(3,3),(0,5)],[(5,0),(1,1),(2,2)]]", "row 2 has 3 cells, row 1 has 2 (in the matrix on"),
    ("[[(3,3),(0,5)],[(5,0)]]", "row 2 has 1 cell, row 1 has 2"),
    ("[[(3,3),0],[(5,0),(1,1)]]", "cell (1, 2) has one number, expected a pair"),
    ("[[(1,2,3),(0,0,0)]]", "cell (1, 1) has 3 numbers, expected a pair"),
    ("[[(3,3),()]]", "cell (1, 2) has no numbers"),
    ("[[ (A1,B1), (A2,B2) ], [ (A3,B3), (A4,B4) ]]", "cell (1, 1) holds 'A1', not a number"),
    ("[[(1/0, 1), (0, 0)]]", "cell (1, 1): '1/0' divides by zero"),
    ("<OUTPUT> [[], []]", "row 1 is empty"),
    ("[[(1, 1)], 5]", "row 2 is '5', not a list of cells"),
    ("[[(1, 1), ((2, 2), 3)], [(0, 0), (1, 1)]]", "cell (1, 2) is nested too deep"),
    ("<OUTPUT>\n[[(1,1),(0,0)],\n [(0,0),(1,1)]\n\nThat is all.",
     "a bracket is never closed (in the matrix on line 2)"),
    ("<OUTPUT>\n[[(1,1),(0,0)],\n [(0,0),(1,1)]", "cut off: the reply ends inside its last "
                                                 "matrix"),
    ("<think>\nA 2x2 game with (1, 1) on the diagonal: [[(1,1),(0,0)],", "cut off: the reply "
                                                                       "ends inside its reason"),
    ("[[(1,1),(0,0)],[(0,0),(1,1]]", "']' closes a '('"),
    ("| | L | R |\n|---|---|---|\n| U | (3, 2) | (0, 5) | (1, 1) |\n| D | (5, 0) | (1, 1) |",
     "row 2 has 2 cells, row 1 has 3 (in the table on line 1)"),
    ("| | L | R |\n|---|---|---|\n| U | (3, 2) | 0 |\n| D | (5, 0) | (1, 1) |",
     "cell (1, 2) has one number"),
    ("| | L | R |\n|---|---|---|\n| U | (3, 2) | |\n| D | (5, 0) | (1, 1) |",
     "cell (1, 2) is empty"),
    ("| | L | R |\n|---|---|---|\n| U | (3, 2) | NE |\n| D | (5, 0) | (1, 1) |",
     "cell (1, 2) reads 'NE', expected a pair of numbers"),
    ("Up: (3,2) (0,5)\nDown: (5,0)", "row 2 has 1 cell, row 1 has 2 (in the lines of pairs"),
    ("(A, A): (4, 7)\n(A, B): (0, 3)\n(B, A): (2, 2)",
     "no payoffs are given for the profile (B, B)"),
    ("Row by row: (1,1), (0,0), (2,2), (3,3), (4,4), (5,5).",
     "6 pairs are listed row by row but the shape is not given"),
    ("A 2x2 game, row by row: (1,1), (0,0), (2,2).",
     "3 pairs are listed row by row, but a 2x2 matrix has 4"),
    ("Player 1: [[3, 0], [5, 1]]\nPlayer 2: [[3, 5, 2], [0, 1, 2]]",
     "player 1's matrix is 2x2 but player 2's is 2x3"),
    ("Player 1: [[3, 0], [5]]\nPlayer 2: [[3, 5], [0, 1]]",
     "row 2 of player 1's matrix has 1 entry, row 1 has 2"),
]


@pytest.mark.parametrize(("text", "reason"), FAILURES)
def test_failure_reasons(text: str, reason: str) -> None:
    assert failure(text).startswith(reason)


def test_final_matrix_broken_is_a_failure_not_the_draft() -> None:
    text = ("Draft: [[(3, 3), (0, 5)], [(5, 0), (1, 1)]]\n"
            "Final: [[(3, 3), (0, 5)], [(5, 0), (1, 1), (2, 2)]]")
    assert failure(text).startswith("row 2 has 3 cells, row 1 has 2 (in the matrix on line 2)")


def test_reason_names_the_line() -> None:
    text = "Some prose.\nMore prose.\n\n[[(1, 1)], [(1, 1), (2, 2)]]"
    assert failure(text) == "row 2 has 2 cells, row 1 has 1 (in the matrix on line 4)"


# ---------------------------------------------------------------- properties

payoffs = st.builds(Fraction, st.integers(-100, 100), st.integers(1, 12))


@st.composite
def games(draw: st.DrawFn) -> Game:
    m, n = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    return Game(tuple(tuple((draw(payoffs), draw(payoffs)) for _ in range(n))
                      for _ in range(m)))


prose = st.text(alphabet="abcdefghij klmnop.,:!?\n", max_size=120)


@settings(max_examples=100, deadline=None)
@given(games(), prose, prose)
def test_python_literal_round_trip(g: Game, before: str, after: str) -> None:
    assert parse_game(f"{before}\n{g.python_literal()}\n{after}") == g


@settings(max_examples=100, deadline=None)
@given(games())
def test_table_round_trip(g: Game) -> None:
    assert parse_game(g.table()) == g


@settings(max_examples=100, deadline=None)
@given(games())
def test_output_marker_round_trip(g: Game) -> None:
    decoy = Game.of([[(99, 99), (98, 98)]]).python_literal()
    assert parse_game(f"{decoy}\n<OUTPUT>\n```\n{g.python_literal()}\n```") == g


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="[](),;|\n -/.0123456789abAB:*$\\&<>OUTPT", max_size=120))
def test_never_raises(text: str) -> None:
    got = parse_game(text)
    assert isinstance(got, (Game, ParseFailure))
    if isinstance(got, ParseFailure):
        assert got.reason


def test_pathological_input_is_fast() -> None:
    import time

    start = time.perf_counter()
    for text in ("[" * 5000 + "1", "[(" * 3000, "| a | b |\n" * 2000,
                 "(A, B) -> (1, 2) " * 2000, "row by row " + "(1,2) " * 2000):
        assert isinstance(parse_game(text), ParseFailure)
    assert time.perf_counter() - start < 5
