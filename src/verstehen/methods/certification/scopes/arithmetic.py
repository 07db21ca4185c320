"""The paper's example scope: a op b, with a, b drawn from [low, high] and op from {+, -, *, /}.

Sampling (Definition 3.1's distribution): op uniform over `ops`; a and b uniform on
[low, high], rounded to `decimals` places (b redrawn while it is 0 for "/"); with
`integers=True`, a and b uniform integers in [low, high], and "/" is made exact by drawing
b >= 1 and a quotient q, with a = b * q (so a is not uniform there). The phrasing is drawn
uniformly from `PHRASINGS`. The true answer t is the exact result of the operands as printed,
rounded once to a float.

Scoring a reply (t the truth, x the number read by `parse_numbers.parse_number`,
eps = 10**-decimals, the operands' precision):
  - "I don't know" (`verstehen.parse.is_idk`): `idk_score` (outcome "idk").
  - No number can be read: 0, ridiculous (outcome "unparsed"). A restatement of the question
    ("a - b is not valid") is removed first, so an operand is not taken for the answer.
  - Ridiculous, 0 (outcome "wrong"), when either
      * |t| >= eps and x is 0 or has the opposite sign of t, or
      * x is off by a factor of 10 or more: max(X/T, T/X) >= 10 with X = max(|x|, eps) and
        T = max(|t|, eps), i.e. magnitudes below the operands' precision count as eps.
  - Otherwise, with the relative error r = |x - t| / max(|t|, eps):
    score = clip(-log10(r) / 6, 0.01, 1.0), 1.0 when r == 0: the number of correct significant
    digits out of 6, so r <= 1e-6 is full credit, r = 1e-3 is 0.5, and a sane but poor answer
    still scores at least 0.01 (0 is kept for ridiculous answers). Outcome "correct" when the
    score is 1.0, else "partial".
  - With `integers=True` full credit needs the exact integer (x == t); any other answer is
    scored as above but at most 5/6.
A value returned by an explanation's program (`grade_output`) is scored by the same rule; a
value that is not a finite number scores 0 (outcome "unparsed").
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, TypedDict, cast

import numpy as np

from verstehen.errors import UserError
from verstehen.grading import Graded
from verstehen.methods.certification.scopes.parse_numbers import parse_number
from verstehen.parse import is_idk
from verstehen.scopes.base import Question

OPS = ("+", "-", "*", "/")
SYMBOL = {"+": "+", "-": "-", "*": "×", "/": "÷"}
WORD = {"+": "plus", "-": "minus", "*": "times", "/": "divided by"}
VERB = {"+": "add {a} and {b}", "-": "subtract {b} from {a}", "*": "multiply {a} by {b}",
        "/": "divide {a} by {b}"}
PHRASINGS = (
    "What is {a} {sym} {b}?",
    "Compute {a} {word} {b}.",
    "Calculate: {a} {op} {b} =",
    "What do you get when you {verb}?",
    "Evaluate the expression {a} {op} {b}.",
)
INSTRUCTION = 'Answer with the number only, or say "I don\'t know".'
INTEGER_CAP = 5 / 6


class ArithmeticData(TypedDict):
    """A question's `data`: its operands (ints with `integers=True`) and its op."""

    a: float
    b: float
    op: str


class ArithmeticPreset(TypedDict, total=False):
    """The settings of a preset scope (`ArithmeticScope`'s fields; absent: the default)."""

    low: float
    high: float
    integers: bool
    idk_score: float


def question_data(question: Question) -> ArithmeticData:
    """The `data` an arithmetic scope wrote into its question, read back as typed."""
    return cast(ArithmeticData, question.data)


@dataclass
class ArithmeticScope:
    """Arithmetic on two numbers from [low, high]: an `ExplainableScope` with one family per op.

    With `integers=True`, `decimals` is set to 0 (the precision eps of the scoring rule is 1).
    """

    low: float = 0.0
    high: float = 1_000_000.0
    decimals: int = 2
    integers: bool = False
    ops: tuple[str, ...] = OPS
    idk_score: float = 0.2
    name: str = "arithmetic"
    answer_tokens: int = 1024  # room to work it out before the number
    phrasings: int = field(default=len(PHRASINGS), init=False)
    program_entry: str = field(default="solve", init=False)
    description: str = field(default="", init=False)
    families: dict[str, float] = field(default_factory=dict, init=False)  # op -> 1/len(ops)

    def __post_init__(self) -> None:
        self.ops = tuple(self.ops)
        if not self.ops or len(set(self.ops)) != len(self.ops) or set(self.ops) - set(OPS):
            raise ValueError(f"ops must be distinct, from {OPS}; got {self.ops}")
        if not 0 <= self.low <= self.high:
            raise ValueError(f"need 0 <= low <= high; got [{self.low}, {self.high}]")
        if self.decimals < 0 or not 0.0 <= self.idk_score <= 1.0:
            raise ValueError("need decimals >= 0 and 0 <= idk_score <= 1")
        if self.integers:
            self.decimals = 0
        if "/" in self.ops and self._round(self.high) < (1 if self.integers else self._eps):
            raise ValueError("division needs a nonzero number in [low, high]")
        self.families = {op: 1 / len(self.ops) for op in self.ops}
        kind = "integers" if self.integers else f"numbers with {self.decimals} decimals"
        self.description = (f"a op b for op in {{{', '.join(self.ops)}}} and {kind} in "
                            f"[{self._fmt(self.low)}, {self._fmt(self.high)}]")

    @property
    def _eps(self) -> float:
        return 10.0 ** -self.decimals

    # -- sampling

    def sample(self, rng: np.random.Generator) -> Question:
        """Draw an op, then its operands and a phrasing."""
        return self.sample_family(rng, self.ops[int(rng.integers(len(self.ops)))])

    def sample_family(self, rng: np.random.Generator, family: str) -> Question:
        """Draw a question with op `family`."""
        if family not in self.ops:
            raise ValueError(f"unknown family {family!r}: choose one of {self.ops}")
        a, b = self._operands(rng, family)
        return self._question(a, b, family, int(rng.integers(self.phrasings)))

    def _round(self, x: float) -> float:
        return float(min(max(round(x, self.decimals), self.low), self.high))

    def _operands(self, rng: np.random.Generator, op: str) -> tuple[float, float]:
        if self.integers:
            lo, hi = math.ceil(self.low), math.floor(self.high)
            if op != "/":
                return float(rng.integers(lo, hi + 1)), float(rng.integers(lo, hi + 1))
            while True:  # b >= 1 and q with b * q in [lo, hi]; b = max(lo, 1) always works
                divisor = int(rng.integers(max(lo, 1), hi + 1))
                q_lo, q_hi = -(-lo // divisor), hi // divisor
                if q_lo <= q_hi:
                    return float(divisor * int(rng.integers(q_lo, q_hi + 1))), float(divisor)
        a = self._round(rng.uniform(self.low, self.high))
        b = self._round(rng.uniform(self.low, self.high))
        while op == "/" and b == 0:
            b = self._round(rng.uniform(self.low, self.high))
        return a, b

    def _fmt(self, x: float) -> str:
        return f"{x:.{self.decimals}f}"

    def _question(self, a: float, b: float, op: str, phrasing: int) -> Question:
        fa, fb = self._fmt(a), self._fmt(b)
        exact = {"+": Fraction.__add__, "-": Fraction.__sub__, "*": Fraction.__mul__,
                 "/": Fraction.__truediv__}[op](Fraction(fa), Fraction(fb))
        data: ArithmeticData = {"a": int(a) if self.integers else a,
                                "b": int(b) if self.integers else b, "op": op}
        return Question(id=f"{fa}{op}{fb}", prompt=self._prompt(data, phrasing),
                        answer=float(exact), phrasing=phrasing, family=op, data=dict(data))

    def _text(self, data: ArithmeticData, phrasing: int) -> str:
        fa, fb, op = self._fmt(data["a"]), self._fmt(data["b"]), data["op"]
        return PHRASINGS[phrasing].format(a=fa, b=fb, op=op, sym=SYMBOL[op], word=WORD[op],
                                          verb=VERB[op].format(a=fa, b=fb))

    def _prompt(self, data: ArithmeticData, phrasing: int) -> str:
        return f"{self._text(data, phrasing)}\n{INSTRUCTION}"

    def rephrase(self, question: Question, phrasing: int) -> Question:
        """The same question (id, answer, data, family) worded with phrasing `phrasing`."""
        if not 0 <= phrasing < self.phrasings:
            raise ValueError(f"phrasing must be in [0, {self.phrasings}); got {phrasing}")
        return replace(question, prompt=self._prompt(question_data(question), phrasing),
                       phrasing=phrasing)

    # -- scoring

    def grade(self, question: Question, answer: str) -> Graded:
        """Read and score a reply (rules in the module docstring)."""
        if is_idk(answer):
            return Graded(self.idk_score, "idk", reason="I don't know")
        x = parse_number(self._without_echo(question, answer))
        if x is None:
            return Graded(0.0, "unparsed", reason="no number in the answer")
        return self._grade_value(float(question.answer), x)

    def _without_echo(self, question: Question, answer: str) -> str:
        """The reply minus restatements of the question ("a - b", "a divided by b", "a ÷ b":
        a, up to three words or signs without digits, b), so that an operand is never read as
        the answer and a reply that only restates the question has no number left; "a - b = x"
        is kept for the parser."""
        data = question_data(question)
        a, b = (re.escape(self._fmt(x)) for x in (data["a"], data["b"]))
        between = r"(?:[^\s\d=]+\s*){1,3}?"
        pair = rf"(?:{a}\s*{between}{b}|{b}\s*{between}{a})"  # "subtract b from a" too
        return re.sub(rf"(?<![\d.]){pair}(?![\d.])(?!\s*=)", " ", answer)

    def score(self, question: Question, answer: str) -> float:
        """The score in [0, 1] of a reply; 0 is ridiculous."""
        return self.grade(question, answer).score

    def exact_answer(self, question: Question) -> Fraction:
        """The exact result of the operands as the question prints them."""
        data = question_data(question)
        a, b = (Fraction(self._fmt(x)) for x in (data["a"], data["b"]))
        op = {"+": Fraction.__add__, "-": Fraction.__sub__, "*": Fraction.__mul__,
              "/": Fraction.__truediv__}[data["op"]]
        return op(a, b)

    def reference(self, question: Question) -> str:
        """The right answer as `grade` reads it: an integer, a terminating decimal written in
        full, else the value to 15 significant digits (full credit). For tests and benchmarks."""
        return number_text(self.exact_answer(question))

    def _grade_value(self, t: float, x: float) -> Graded:
        eps = self._eps
        if abs(t) >= eps and (x == 0 or x * t < 0):
            return Graded(0.0, "wrong", x, "zero" if x == 0 else "wrong sign")
        big, small = sorted((max(abs(x), eps), max(abs(t), eps)), reverse=True)
        if big / small >= 10:
            return Graded(0.0, "wrong", x, "off by a factor of 10 or more")
        r = abs(x - t) / max(abs(t), eps)
        score = 1.0 if r == 0 else min(max(-math.log10(r) / 6, 0.01), 1.0)
        if self.integers and x != t:
            score = min(score, INTEGER_CAP)
        if score == 1.0:
            return Graded(1.0, "correct", x)
        return Graded(score, "partial", x, f"relative error {r:.3g}")

    # -- explanations

    def program_prompt(self, question: Question) -> str:
        """Ask for `solve(a, b)` answering every question of this question's op."""
        data = question_data(question)
        op = data["op"]
        kind = "integers" if self.integers else "real numbers"
        nonzero = " (b is never 0)" if op == "/" else ""
        return (
            f"Here is a question:\n\n{self._text(data, question.phrasing)}\n\n"
            f"Write a Python function `{self.program_entry}(a, b)` that returns the answer to "
            f'every question of the form "a {op} b", where a and b are {kind} in '
            f"[{self._fmt(self.low)}, {self._fmt(self.high)}]{nonzero}. It must return a "
            f"number. Reply with the code only, in a ```python block."
        )

    def program_args(self, question: Question) -> list[Any]:
        """The arguments of `solve`: [a, b]."""
        data = question_data(question)
        return [data["a"], data["b"]]

    def grade_output(self, question: Question, output: Any) -> Graded:
        """Score a value `solve` returned, like a reply; anything but a finite number is 0."""
        if isinstance(output, bool) or not isinstance(output, numbers.Real):
            return Graded(0.0, "unparsed", reason=f"returned {type(output).__name__}, "
                                                  "not a number")
        try:
            x = float(output)
        except OverflowError:
            x = math.inf
        if not math.isfinite(x):
            return Graded(0.0, "unparsed", reason=f"returned {output!r}, not a finite number")
        return self._grade_value(float(question.answer), x)


def number_text(x: Fraction, digits: int = 15) -> str:
    """An exact value as a number a reply would write: "1776", "-0.125", or, when its decimal
    expansion does not end, `digits` significant digits ("0.333333333333333")."""
    den, places = x.denominator, 0
    while den % 2 == 0 or den % 5 == 0:
        den //= 2 if den % 2 == 0 else 5
        places += 1
    if den != 1:
        return f"{float(x):.{digits}g}"
    if places == 0:
        return str(x.numerator)
    scaled = abs(x.numerator) * 10**places // x.denominator
    whole, frac = divmod(scaled, 10**places)
    return f"{'-' if x < 0 else ''}{whole}.{frac:0{places}d}".rstrip("0")


PRESETS: dict[str, ArithmeticPreset] = {
    "arithmetic": {},
    "arithmetic/small": {"low": 0, "high": 99, "integers": True, "idk_score": 0.0},
}


def arithmetic_scope(name: str, *, idk_score: float | None = None) -> ArithmeticScope:
    """The preset scope `name` ("arithmetic" or "arithmetic/small"), idk_score overridable."""
    if name not in PRESETS:
        raise UserError(f"unknown arithmetic scope {name!r}: choose one of {', '.join(PRESETS)}")
    settings = PRESETS[name].copy()
    if idk_score is not None:
        settings["idk_score"] = idk_score
    return ArithmeticScope(**settings, name=name)
