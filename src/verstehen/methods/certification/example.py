"""A small finished certify run folder made with a scripted model, for the tests that every run
kind goes through (`RunKind.example`), and the scripted calculator they use."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

from verstehen.methods.certification.options import certify
from verstehen.testing.scripted import ScriptedModel

# the example's questions, and how many of them are asked again in another phrasing
QUESTIONS, REPHRASED = 20, 2
EXPRESSION = re.compile(r"(\d+(?:\.\d+)?) (\+|-|\*|/|×|÷|plus|minus|times|divided by) "
                        r"(\d+(?:\.\d+)?)")
VERBS = re.compile(r"(add|subtract|multiply|divide) (\d+(?:\.\d+)?) (?:and|from|by) "
                   r"(\d+(?:\.\d+)?)")


def true_answer(prompt: str) -> Fraction:
    """Work out an arithmetic prompt's answer from its text alone (independent of the scope)."""
    if found := EXPRESSION.search(prompt):
        a, op, b = found.groups()
    elif found := VERBS.search(prompt):
        verb, x, y = found.groups()
        op = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/"}[verb]
        a, b = (y, x) if verb == "subtract" else (x, y)
    else:
        raise ValueError(f"no arithmetic in {prompt!r}")
    op = {"×": "*", "÷": "/", "plus": "+", "minus": "-", "times": "*", "divided by": "/"}.get(
        op, op)
    fa, fb = Fraction(a), Fraction(b)
    if op == "/":
        return fa / fb
    return {"+": fa + fb, "-": fa - fb, "*": fa * fb}[op]


def calculator(prompt: str) -> str:
    """A model that always answers right."""
    value = true_answer(prompt)
    return str(value.numerator) if value.denominator == 1 else f"{float(value):.6f}"


def certify_example(runs_dir: Path, cache: Path, tag: str = "") -> Path:
    """QUESTIONS arithmetic questions, REPHRASED of them asked again, of a scripted calculator
    (`scripted/calc` + tag), at pg 0.6 and rid 0.3."""
    model = ScriptedModel(f"scripted/calc{tag}", reply=calculator)
    return certify(model, "arithmetic/small", questions=QUESTIONS, rephrase=REPHRASED, pg=0.6,
                   rid=0.3, runs_dir=runs_dir, cache=cache).run_dir
