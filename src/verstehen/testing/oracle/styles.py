"""Reply styles: the formats capable models write an answer in.

Every style applies to every kind of answer; where a style means nothing for a kind it falls
back to a near one, as noted. Reasoning, when asked for, comes before the answer (inside the
think block for "think").

- bare: the answer as the prompt asks ("ANSWER: Yes", "<OUTPUT>" then the matrix, the poem, the
  word, "1776", "B").
- reasoned: reasoning first, then the flag: "ANSWER: Yes", "<OUTPUT>", "Final answer:" before a
  poem, word, blank's text or number, "The answer is B." for a choice.
- fenced: the answer in a ``` code block (a matrix as ```python; a choice as "Answer: B" in it).
- table: a matrix as a markdown table; other kinds fall back to "bold".
- latex: a matrix in \\begin{pmatrix}, a number in \\boxed{1776}, Yes/No as
  \\boxed{\\text{Yes}}, a choice as \\boxed{B}; poems, words and blanks fall back to "bold".
- bold: a bold flag: "**Answer:** Yes", "**Final answer:** 1776", "**Final output:**" over a
  matrix, "**Final answer:**" over a poem.
- draft: a draft first (the other answer: a wrong one before the oracle's, the right one
  before the adversary's), then the final one after a correction.
- preamble: a one-line lead-in before the answer ("Here is a haiku using the word "sun":").
- title: a bold title over a poem or over a matrix (as a table); other kinds fall back to "bold".
- think: `<think>reasoning</think>` (empty without reasoning), then the plain answer ("Yes",
  the matrix literal, the poem, "1776", "B").
- worked: a number worked out before it ("37 × 48 = 37 × 100 − 37 × 52 = 3700 − 1924 = 1776");
  other kinds fall back to "reasoned".

Styles real models were seen to write (the Potemkin benchmark's stored replies):
- paired: the flag used as a pair, with a remark after it: "<OUTPUT>", the matrix, "<OUTPUT>"
  again as a closing tag, then a sentence about it; other kinds: "Final answer:" then the
  answer, then a closing remark ("ANSWER: Yes" then one for a yes/no).
- labelled: a matrix as a table whose cells name the players ("Ann: 3, Bob: 2", rows "Ann: R1",
  columns "Bob: C1"); other kinds fall back to "bold".
- sums: a matrix after "<OUTPUT>" whose payoffs are small sums ("(5-2, 0+2)"); a number shown
  as its working; other kinds fall back to "reasoned".
- outcomes: a matrix as a bulleted list of outcomes ("- **R1, C1:** (3, 2)"); other kinds fall
  back to "paired".
- after: the answer, then the flag after it ("the matrix, then <OUTPUT>"); a yes/no as "Yes"
  on its own line after its reasoning; other kinds fall back to "bare".
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from verstehen.domains.game_theory.game import Game, fraction_text
from verstehen.testing.oracle.answers import Answer, bare

STYLES = ("bare", "reasoned", "fenced", "table", "latex", "bold", "draft", "preamble", "title",
          "think", "worked", "paired", "labelled", "sums", "outcomes", "after")
_VERSE = ("poem", "line")
_TEX = str.maketrans({"×": "\\times ", "÷": "\\div ", "−": "-"})


def _pmatrix(game: Game) -> str:
    rows = [" & ".join(f"({fraction_text(a)}, {fraction_text(b)})" for a, b in row)
            for row in game.cells]
    return "$$\n\\begin{pmatrix}\n" + " \\\\\n".join(rows) + "\n\\end{pmatrix}\n$$"


def _plain(a: Answer) -> str:
    """The answer with no flag at all."""
    return a.text


def _reasoned(a: Answer) -> str:
    if a.kind in ("yes_no", "matrix"):
        return bare(a)
    if a.kind == "choice":
        return f"The answer is {a.text}."
    return f"Final answer:\n{a.text}" if a.kind in _VERSE else f"Final answer: {a.text}"


def _fenced(a: Answer) -> str:
    if a.kind == "matrix":
        return f"```python\n{a.text}\n```"
    body = {"yes_no": bare(a), "choice": f"Answer: {a.text}"}.get(a.kind, a.text)
    return f"```\n{body}\n```"


def _bold(a: Answer) -> str:
    if a.kind == "matrix":
        return f"**Final output:**\n\n{a.text}"
    if a.kind in _VERSE:
        return f"**Final answer:**\n\n{a.text}"
    flag = "Final answer" if a.kind == "number" else "Answer"
    return f"**{flag}:** {a.text}"


def _table(a: Answer) -> str:
    return a.game.table() if a.game is not None else _bold(a)


def _latex(a: Answer) -> str:
    if a.game is not None:
        return _pmatrix(a.game)
    if a.kind == "number":
        steps = a.working.rsplit(" = ", 1)[0].translate(_TEX)
        return f"$${steps} = \\boxed{{{a.text}}}$$"
    if a.kind == "yes_no":
        return f"$\\boxed{{\\text{{{a.text}}}}}$"
    if a.kind == "choice":
        return f"$\\boxed{{{a.text}}}$"
    return _bold(a)


def _draft(a: Answer, other: Answer) -> str:
    if a.kind == "yes_no":
        return f"ANSWER: {other.text}\n\nWait, let me double-check that.\n\nANSWER: {a.text}"
    if a.kind == "matrix":
        return (f"Here is a first draft:\n{other.text}\n\nThat misses a condition, so here is "
                f"the corrected matrix.\n\n<OUTPUT>\n{a.text}")
    if a.kind == "number":
        return (f"My first attempt gave {other.text}, but a digit slipped there.\n"
                f"Final answer: {a.text}")
    if a.kind == "choice":
        return (f"At first option {other.text} seemed right, but it does not fit.\n"
                f"The answer is {a.text}.")
    if a.kind in _VERSE:
        return f"Draft:\n{other.text}\n\nThat draft is off.\n\nFinal answer:\n{a.text}"
    return f'Draft: "{other.text}" does not work.\nFinal answer: {a.text}'


def _preamble(a: Answer) -> str:
    return f"{a.lead}\n\n{a.text}"


def _title(a: Answer) -> str:
    if a.game is not None:
        return f"**{a.title}**\n\n{a.game.table()}"
    if a.kind in _VERSE:
        return f"**{a.title}**\n\n{a.text}"
    return _bold(a)


def _worked(a: Answer) -> str:
    return a.working if a.kind == "number" else _reasoned(a)


def _paired(a: Answer) -> str:
    if a.kind == "matrix":
        return f"<OUTPUT>\n{a.text}\n<OUTPUT>\n\nIn this matrix every condition holds."
    if a.kind == "yes_no":
        return f"ANSWER: {a.text}\n\nThat settles the question."
    if a.kind in _VERSE:
        return f"Final answer:\n{a.text}\n\nThis meets every condition."
    return f"Final answer: {a.text}\n\nThis meets every condition."


def _labelled(a: Answer) -> str:
    if a.game is None:
        return _bold(a)
    m, n = a.game.shape
    head = "| | " + " | ".join(f"Bob: C{j + 1}" for j in range(n)) + " |"
    rows = [f"| Ann: R{i + 1} | " + " | ".join(
        f"Ann: {fraction_text(x)}, Bob: {fraction_text(y)}" for x, y in a.game.cells[i]) + " |"
        for i in range(m)]
    return "\n".join([head, "|---" * (n + 1) + "|", *rows])


def _sum_text(x: Fraction) -> str:
    return f"{fraction_text(x + 2)}-2" if x.denominator == 1 else fraction_text(x)


def _sums(a: Answer) -> str:
    if a.game is None:
        return a.working if a.kind == "number" else _reasoned(a)
    rows = ["[" + ", ".join(f"({_sum_text(x)}, {_sum_text(y)})" for x, y in row) + "]"
            for row in a.game.cells]
    return "<OUTPUT>\n[" + ",\n ".join(rows) + "]"


def _outcomes(a: Answer) -> str:
    if a.game is None:
        return _paired(a)
    m, n = a.game.shape
    return "The outcomes:\n\n" + "\n".join(
        f"- **R{i + 1}, C{j + 1}:** ({fraction_text(a.game.cells[i][j][0])}, "
        f"{fraction_text(a.game.cells[i][j][1])})" for i in range(m) for j in range(n))


def _after(a: Answer) -> str:
    if a.kind == "matrix":
        return f"{a.text}\n\n<OUTPUT>"
    if a.kind == "yes_no":
        return a.text
    return bare(a)


_FINAL: dict[str, Callable[[Answer], str]] = {
    "bare": bare, "reasoned": _reasoned, "fenced": _fenced, "table": _table, "latex": _latex,
    "bold": _bold, "preamble": _preamble, "title": _title, "think": _plain, "worked": _worked,
    "paired": _paired, "labelled": _labelled, "sums": _sums, "outcomes": _outcomes,
    "after": _after,
}


def render(a: Answer, style: str, reasoning: str, other: Callable[[], Answer]) -> str:
    """The reply that gives `a` in `style` after `reasoning` ("" for none); `other` is the
    answer a draft shows (asked for only by the "draft" style)."""
    if style not in STYLES:
        raise ValueError(f"unknown style {style!r}: choose one of {', '.join(STYLES)}")
    final = _draft(a, other()) if style == "draft" else _FINAL[style](a)
    if style == "think":
        return f"<think>\n{reasoning}\n</think>\n\n{final}"
    return f"{reasoning}\n\n{final}" if reasoning else final
