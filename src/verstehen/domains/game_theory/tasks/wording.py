"""How the game-theory prompts word things: strategy labels, probabilities, a game as a table or
in sentences, the benchmark's output format, and the sentences that ask for unique payoffs."""

from __future__ import annotations

from fractions import Fraction

from verstehen.domains.game_theory.game import Game, fraction_text

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")
UNIQUE_ALL = ("In the payoff matrix (combined for both players), all numbers must be unique, "
              "regardless of which Player the payoff is associated with.")
UNIQUE_P1 = "All of Player 1's payoffs must be different numbers (and so all of Player 2's)."
UNIQUE_ASKS = {"all": UNIQUE_ALL, "player1": UNIQUE_P1}  # the sentence for each `Unique` demand


def prob_text(p: Fraction) -> str:
    """A probability as a short decimal ("0.25") when it has one, else a fraction ("1/3")."""
    if 1000 % p.denominator == 0:
        return f"{float(p):g}"
    return fraction_text(p)


def label(player: int, index: int) -> str:
    """R1, R2, ... for player 1's strategies, C1, C2, ... for player 2's."""
    return f"{'R' if player == 1 else 'C'}{index + 1}"


def listing(words: list[str], last: str = "and") -> str:
    """"a", "a and b", "a, b and c" (or another final conjunction)."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + f" {last} " + words[-1]


def mix_text(player: int, mix: list[Fraction]) -> str:
    """"Player 1 plays R1 with probability 0.2, R2 with probability 0.8"."""
    parts = [f"{label(player, s)} with probability {prob_text(p)}" for s, p in enumerate(mix)]
    return f"Player {player} plays {listing(parts)}"


def game_text(game: Game, phrasing: int) -> str:
    """The game as a table (phrasing 0) or as one sentence per outcome (phrasing 1)."""
    m, n = game.shape
    rows = listing([label(1, i) for i in range(m)], "or")
    cols = listing([label(2, j) for j in range(n)], "or")
    if phrasing == 0:
        return (f"Player 1 chooses a row ({rows}) and Player 2 chooses a column ({cols}); each "
                f"cell lists (Player 1's payoff, Player 2's payoff).\n\n{game.table()}")
    lines = [f"Two players choose at the same time: Player 1 chooses {rows}, and Player 2 "
             f"chooses {cols}."]
    for i in range(m):
        for j in range(n):
            a, b = game.cells[i][j]
            lines.append(f"If Player 1 plays {label(1, i)} and Player 2 plays {label(2, j)}, "
                         f"Player 1 gets {fraction_text(a)} and Player 2 gets {fraction_text(b)}.")
    return "\n".join(lines)


def template(m: int, n: int, one_line: bool = False) -> str:
    """The paper's output format with placeholders: [[ (A1,B1), (A2,B2) ], ...]."""
    rows = ["[ " + ", ".join(f"(A{i * n + j + 1},B{i * n + j + 1})" for j in range(n)) + " ]"
            for i in range(m)]
    return "[" + (", " if one_line else ",\n ").join(rows) + "]"


def output_format(m: int, n: int, phrasing: int, what: str, nonnegative: bool) -> str:
    """How to write the answer. Phrasing 0 is the benchmark's generate wording (PotemkinBenchmark
    generate/questions.csv: "Use as much text as you want", "non-negative, integer-valued"
    payoffs, except in its zero-sum prompts), `what` naming the matrix asked for; phrasing 1
    says the same in other words."""
    payoffs = "non-negative, integer-valued" if nonnegative else "integer-valued"
    if phrasing == 0:
        return (f"Use as much text as you want. At the end, please generate your final output "
                f"after the flag <OUTPUT>. In the final output, the following constraints must "
                f"be met: {what} The matrix must be a valid representation of a game in game "
                f"theory. It must be in the following format:\n\n{template(m, n)}\n\nWhere Ai "
                f"and Bi represent the {payoffs} payoffs for Player 1 and Player 2 "
                f"respectively. Include no text other than the payoff matrix.")
    pairs = "non-negative integers" if nonnegative else "integers"
    return (f"Reason first for as long as you like. Then write the flag <OUTPUT> and after it "
            f"only {what}: a Python list of {m} rows (Player 1's actions in order), each a list "
            f"of {n} (Player 1 payoff, Player 2 payoff) pairs of {pairs} (Player 2's actions "
            f"in order), like {template(m, n, one_line=True)}.")


# The wording of the generate format (phrasing 1), asked of a reply that should be an instance;
# its example is template(2, 2, one_line=True), checked by the tests.
INSTANCE_REQUEST = (
    "Write the game after the flag <OUTPUT> as the payoff matrix of a two-player game: a Python "
    "list of rows (Player 1's actions in order), each a list of (Player 1 payoff, Player 2 "
    "payoff) pairs of integers (Player 2's actions in order), like "
    "[[ (A1,B1), (A2,B2) ], [ (A3,B3), (A4,B4) ]] for a 2x2 game. Include no text other than "
    "the payoff matrix after the flag.")
