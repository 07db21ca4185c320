"""A grammar of how models write answers: replies built from independent choices (reasoning
before, a think block, flags single or paired or after the answer, fences, tables with and
without labels, LaTeX, bold, bullets, outcome lists, sums in cells, title and preamble lines,
trailing remarks, drafts) must be read as the answer that was put in, and answers offered as
alternatives must be refused (the rule of `verstehen.reading`). The oracle's reply styles are a
few points of this grammar."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verstehen.domains.game_theory.game import Game, fraction_text
from verstehen.domains.game_theory.parse import ParseFailure, parse_game
from verstehen.parse import parse_yes_no

GRAMMAR = settings(max_examples=1500, deadline=None, derandomize=True,
                   suppress_health_check=[HealthCheck.too_slow])
REASONING = ("Let me check each condition one at a time before I commit to an answer. "
             "The definition has to hold exactly, so I will not rush.")
REMARK = "This satisfies every condition in the question."


def f(x: Fraction) -> str:
    """A payoff as the grammar writes it."""
    return fraction_text(x)


# ---------------------------------------------------------------- matrices: formats


def literal(g: Game, layout: str) -> str:
    """A Python or JSON literal: one line, the benchmark's layout (a row a line), or lists."""
    if layout == "lists":
        return "[" + ", ".join("[" + ", ".join(f"[{f(a)}, {f(b)}]" for a, b in row) + "]"
                               for row in g.cells) + "]"
    rows = ["[ " + ", ".join(f"({f(a)},{f(b)})" for a, b in row) + " ]" for row in g.cells]
    return "[" + (",\n " if layout == "rows" else ", ").join(rows) + "]"


def table(g: Game, header: bool, bold: bool) -> str:
    """A markdown table, with or without a header row; cells bold or not."""
    n = g.shape[1]
    star = "**" if bold else ""
    lines = ["| | " + " | ".join(f"C{j + 1}" for j in range(n)) + " |", "|---" * (n + 1) + "|"]
    lines = lines if header else []
    lines += [f"| R{i + 1} | " + " | ".join(f"{star}({f(a)}, {f(b)}){star}" for a, b in row)
              + " |" for i, row in enumerate(g.cells)]
    return "\n".join(lines)


NAMES = [("Ann", "Bob"), ("Dolphin", "Octopus"), ("Player 1", "Player 2"), ("P1", "P2"),
         ("A", "B")]


def labelled(g: Game, names: tuple[str, str], second_first: bool) -> str:
    """A table whose cells name the players, in either order; rows and columns named too."""
    one, two = names
    n = g.shape[1]

    def cell(a: Fraction, b: Fraction) -> str:
        return f"{two}: {f(b)}, {one}: {f(a)}" if second_first else f"{one}: {f(a)}, {two}: {f(b)}"
    lines = ["| | " + " | ".join(f"{two}: C{j + 1}" for j in range(n)) + " |",
             "|---" * (n + 1) + "|"]
    lines += [f"| {one}: R{i + 1} | " + " | ".join(cell(a, b) for a, b in row) + " |"
              for i, row in enumerate(g.cells)]
    return "\n".join(lines)


def latex(g: Game) -> str:
    """A LaTeX pmatrix of pairs."""
    rows = [" & ".join(f"({f(a)}, {f(b)})" for a, b in row) for row in g.cells]
    return "$$\n\\begin{pmatrix}\n" + " \\\\\n".join(rows) + "\n\\end{pmatrix}\n$$"


def plain_lines(g: Game) -> str:
    """One labelled row a line: "R1: (3, 2) (0, 5)"."""
    return "\n".join(f"R{i + 1}: " + " ".join(f"({f(a)}, {f(b)})" for a, b in row)
                     for i, row in enumerate(g.cells))


def outcome_statements(g: Game) -> str:
    """One sentence an outcome: "(R1, C1) leads to (3, 2)"."""
    return "\n".join(f"(R{i + 1}, C{j + 1}) leads to ({f(a)}, {f(b)})."
                     for i, row in enumerate(g.cells) for j, (a, b) in enumerate(row))


def outcome_list(g: Game, numbered: bool) -> str:
    """A bulleted or numbered list of outcomes: "- **R1, C1:** (3, 2)"."""
    items = [(f"R{i + 1}, C{j + 1}", a, b) for i, row in enumerate(g.cells)
             for j, (a, b) in enumerate(row)]
    return "\n".join(f"{f'{k}.' if numbered else '-'} **{p}:** ({f(a)}, {f(b)})"
                     for k, (p, a, b) in enumerate(items, 1))


def sums(g: Game, shifts: list[int], spaced: bool) -> str:
    """A literal whose payoffs are small sums and differences ("5-2", "1 + 2")."""
    it = iter(shifts * (2 * len(g.cells) * len(g.cells[0])))
    sep = " " if spaced else ""

    def term(x: Fraction) -> str:
        k = next(it)
        return f"{f(x - k)}{sep}+{sep}{k}" if k % 2 else f"{f(x + k)}{sep}-{sep}{k}"
    return "[" + ",\n ".join("[" + ", ".join(f"({term(a)}, {term(b)})" for a, b in row) + "]"
                             for row in g.cells) + "]"


def per_player(g: Game) -> str:
    """One matrix of single numbers per player, labelled."""
    one = "[" + ", ".join("[" + ", ".join(f(a) for a, _ in row) + "]" for row in g.cells) + "]"
    two = "[" + ", ".join("[" + ", ".join(f(b) for _, b in row) + "]" for row in g.cells) + "]"
    return f"Player 1: {one}\nPlayer 2: {two}"


@st.composite
def games(draw: st.DrawFn) -> Game:
    """A 2x2 to 3x3 game of small integer payoffs, negative ones too."""
    m, n = draw(st.integers(2, 3)), draw(st.integers(2, 3))
    x = st.integers(-9, 20)
    return Game.of([[(draw(x), draw(x)) for _ in range(n)] for _ in range(m)])


FORMATS = ("literal-line", "literal-rows", "literal-lists", "table", "table-bare", "labelled",
           "latex", "plain", "statements", "outcomes", "sums", "per-player")


@st.composite
def matrix_text(draw: st.DrawFn, g: Game) -> tuple[str, str]:
    """The matrix in one of the formats, and the format's name."""
    form = draw(st.sampled_from(FORMATS))
    if form.startswith("literal"):
        text = literal(g, form.removeprefix("literal-"))
    elif form.startswith("table"):
        text = table(g, header=form == "table", bold=draw(st.booleans()))
    elif form == "labelled":
        text = labelled(g, draw(st.sampled_from(NAMES)), draw(st.booleans()))
    elif form == "latex":
        text = latex(g)
    elif form == "plain":
        text = plain_lines(g)
    elif form == "statements":
        text = outcome_statements(g)
    elif form == "outcomes":
        text = outcome_list(g, draw(st.booleans()))
    elif form == "sums":
        text = sums(g, draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)),
                    draw(st.booleans()))
    else:
        text = per_player(g)
    fenced = form in ("literal-line", "literal-rows", "literal-lists", "sums") and draw(
        st.sampled_from(["", "```", "```python"]))
    if fenced:
        text = f"{fenced}\n{text}\n```"
    return text, form


@dataclass(frozen=True)
class MatrixReply:
    """A reply and the game a person reads in it."""

    text: str
    game: Game


FLAGS = ("none", "before", "bold-before", "word", "paired", "closing", "after")


@st.composite
def matrix_replies(draw: st.DrawFn) -> MatrixReply:
    """A reply built from independent choices; the game put in is its final answer."""
    g, other = draw(games()), draw(games())
    answer, form = draw(matrix_text(g))
    flag = draw(st.sampled_from(FLAGS))
    parts: list[str] = []
    if draw(st.booleans()):  # a think block, with a draft inside
        parts.append(f"<think>\n{REASONING}\nA first try: {literal(other, 'line')}\n</think>")
    if draw(st.booleans()):
        parts.append(REASONING)
    if flag != "none" and draw(st.booleans()):  # a draft the flag sets apart from the answer
        parts.append(f"A first draft:\n{draw(matrix_text(other))[0]}\n\nThat misses a "
                     "condition, so here is the corrected matrix.")
    if draw(st.booleans()):
        parts.append("Here is the payoff matrix:")
    if form in ("table", "labelled") and draw(st.booleans()):
        parts.append("**Payoff matrix**")
    trailing = draw(st.booleans()) and form != "per-player"
    if flag == "none":
        parts.append(answer)
    elif flag == "before":
        parts.append(f"<OUTPUT>\n{answer}")
    elif flag == "bold-before":
        parts.append(f"**<OUTPUT>**\n{answer}")
    elif flag == "word":
        parts.append(f"OUTPUT:\n{answer}")
    elif flag == "paired":
        parts.append(f"<OUTPUT>\n{answer}\n<OUTPUT>")
    elif flag == "closing":
        parts.append(f"<OUTPUT>\n{answer}\n</OUTPUT>")
    else:
        parts.append(f"{answer}\n\n<OUTPUT>")
    if trailing:
        parts.append(REMARK)
    return MatrixReply("\n\n".join(parts), g)


@GRAMMAR
@given(matrix_replies())
def test_the_matrix_put_in_is_the_matrix_read(reply: MatrixReply) -> None:
    got = parse_game(reply.text)
    assert got == reply.game, (reply.text, got)


@GRAMMAR
@given(games(), games(), st.sampled_from(["or", "Or, equally:", "Alternatively,"]),
       st.booleans())
def test_two_matrices_offered_as_alternatives_are_refused(first: Game, second: Game, word: str,
                                                          flagged: bool) -> None:
    if first == second:
        return
    text = f"{literal(first, 'rows')}\n\n{word}\n\n{literal(second, 'rows')}"
    got = parse_game(f"<OUTPUT>\n{text}" if flagged else text)
    assert isinstance(got, ParseFailure) and "alternatives" in got.reason, got


# ---------------------------------------------------------------- yes / no


FINALS = ("cue", "cue-is", "therefore", "bold-cue", "boxed", "bare", "bold-bare", "leading")


@dataclass(frozen=True)
class YesNoReply:
    """A reply and the answer a person reads in it (None: offered as alternatives)."""

    text: str
    said: bool | None


@st.composite
def yes_no_replies(draw: st.DrawFn) -> YesNoReply:
    """A classify reply built from independent choices."""
    said = draw(st.booleans())
    word, other = ("Yes", "No") if said else ("No", "Yes")
    final = draw(st.sampled_from(FINALS))
    word = draw(st.sampled_from([word, word.upper(), word.lower()]))
    bold = "**" if draw(st.booleans()) else ""
    forms = {"cue": f"ANSWER: {bold}{word}{bold}", "cue-is": f"The answer is: {word}.",
             "therefore": f"Therefore, the answer is {bold}{word}{bold}.",
             "bold-cue": f"**Answer:** {word}", "boxed": f"$\\boxed{{\\text{{{word}}}}}$",
             "bare": word, "bold-bare": f"**{word}**", "leading": f"{word}. {REASONING}"}
    answer = forms[final]
    if final in ("cue", "bold-cue") and draw(st.booleans()):
        answer = f"```\n{answer}\n```"
    parts: list[str] = []
    if draw(st.booleans()):
        parts.append(f"<think>\n{REASONING} Maybe the answer is {other.lower()}.\n</think>")
    if final != "leading":
        if draw(st.booleans()):  # an echo of the instructions, then an idiom
            parts.append("I have to reply with either 'ANSWER: Yes' or 'ANSWER: No'.")
        if draw(st.booleans()):
            parts.append("No problem, let me look at each part." if other == "No"
                         else "Yes, I can check that; let me look at each part.")
        if draw(st.booleans()):
            parts.append(f"{REASONING} There is no reason to say {other.lower()} yet.")
        if final in ("bare", "bold-bare") and draw(st.booleans()):
            parts.append(f"Maybe the answer is {other.lower()}, but let me look again.")
        if final not in ("bare", "bold-bare") and draw(st.booleans()):
            parts.append(f"ANSWER: {other}\n\nWait, let me double-check that.")
    parts.append(answer)
    if final not in ("bare", "bold-bare", "leading") and draw(st.booleans()):
        parts.append(REMARK)
    return YesNoReply("\n\n".join(parts), said)


@GRAMMAR
@given(yes_no_replies())
def test_the_yes_or_no_put_in_is_the_one_read(reply: YesNoReply) -> None:
    assert parse_yes_no(reply.text) is reply.said, reply.text


@GRAMMAR
@given(st.sampled_from(["ANSWER: Yes or No", "ANSWER: Yes/No", "The answer is yes or no.",
                        "Reply with either 'ANSWER: Yes' or 'ANSWER: No'."]),
       st.booleans())
def test_yes_and_no_offered_as_alternatives_are_refused(text: str, reasoning: bool) -> None:
    assert parse_yes_no(f"{REASONING}\n\n{text}" if reasoning else text) is None
