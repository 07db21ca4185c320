"""The `parity` domain: one concept, `parity/even` (is a whole number even?), graded exactly.

Every reply must end with "ANSWER: " and its value (Yes/No, or a number); a reply that does not
is unreadable (score 0).
"""

from __future__ import annotations

import re

import numpy as np

from verstehen.domains.base import InstanceCheck, Item, unreadable
from verstehen.domains.plugins import ConceptDomain, PluginConcept
from verstehen.grading import Graded

_FINAL_YES_NO = re.compile(r"ANSWER:\s*(yes|no)\W*\Z", re.IGNORECASE)
_FINAL_NUMBER = re.compile(r"ANSWER:\s*(-?\d+)\W*\Z")
_ASK = "End your reply with ANSWER: followed by"


def final_number(reply: str) -> int | None:
    """The whole number the reply ends with after "ANSWER:", or None."""
    match = _FINAL_NUMBER.search(reply.strip())
    return int(match.group(1)) if match else None


class EvenNumber:
    """The use tasks of `parity/even` (a ConceptTasks, with a claim-free instance test)."""

    key = "parity/even"
    name = "an even number"
    phrasings = 2
    instance_request = "End your reply with ANSWER: followed by the number."
    instance_tested = True

    def classify_item(self, rng: np.random.Generator, positive: bool) -> Item:
        """Is a number between 10 and 999 even? (true answer `positive`)"""
        half = int(rng.integers(5, 500))
        return Item("classify", positive, {"number": 2 * half + (0 if positive else 1)})

    def generate_item(self, rng: np.random.Generator) -> Item:
        """An even number in a range at least 3 wide (so one always exists)."""
        low = int(rng.integers(1, 500))
        return Item("generate", None, {"low": low, "high": low + int(rng.integers(3, 50))})

    def edit_item(self, rng: np.random.Generator, make_instance: bool) -> Item:
        """Change the last digit of an odd number to make it even (or of an even one to make
        it odd)."""
        half = int(rng.integers(5, 500))
        number = 2 * half + (1 if make_instance else 0)
        return Item("edit", None, {"number": number, "make": "even" if make_instance else "odd"})

    def render(self, item: Item, phrasing: int) -> str:
        """The prompt of `item` in phrasing 0 or 1."""
        data = item.data
        if item.kind == "classify":
            question = (f"Is {data['number']} an even number?" if phrasing == 0 else
                        f"Does 2 divide {data['number']} with no remainder?")
            return f"{question} {_ASK} Yes or No."
        if item.kind == "generate":
            verb = "Write" if phrasing == 0 else "Give"
            return (f"{verb} an even number between {data['low']} and {data['high']}. "
                    f"{_ASK} the number.")
        verb = "Change" if phrasing == 0 else "Replace"
        return (f"{verb} the last digit of {data['number']} so that the number becomes "
                f"{data['make']}. {_ASK} the new number.")

    def max_tokens(self, item: Item) -> int:
        """A short reply is enough."""
        return 64

    def grade(self, item: Item, reply: str) -> Graded:
        """1 for the right answer; 0 wrong or unreadable."""
        data = item.data
        if item.kind == "classify":
            match = _FINAL_YES_NO.search(reply.strip())
            if match is None:
                return Graded(0.0, "unparsed", None, "no final ANSWER: Yes or No")
            said = match.group(1).lower() == "yes"
            return Graded(1.0 if said == item.answer else 0.0,
                          "correct" if said == item.answer else "wrong", said)
        number = final_number(reply)
        if number is None:
            return Graded(0.0, "unparsed", None, "no final ANSWER: and a number")
        if item.kind == "generate":
            right = number % 2 == 0 and data["low"] <= number <= data["high"]
        else:
            wanted = 0 if data["make"] == "even" else 1
            right = number // 10 == data["number"] // 10 and number % 2 == wanted
        return Graded(1.0 if right else 0.0, "correct" if right else "wrong", number)

    def reference(self, item: Item) -> str:
        """A right reply."""
        data = item.data
        if item.kind == "classify":
            return "ANSWER: " + ("Yes" if item.answer else "No")
        if item.kind == "generate":
            return f"ANSWER: {data['low'] + data['low'] % 2}"
        number = data["number"]
        return f"ANSWER: {number - number % 10 + (0 if data['make'] == 'even' else 1)}"

    def instance_check(self, text: str) -> InstanceCheck:
        """Whether the number a reply ends with is even."""
        number = final_number(text)
        if number is None:
            return unreadable(text, "no final ANSWER: and a number")
        return InstanceCheck(number % 2 == 0, None if number % 2 == 0 else f"{number} is odd")


DOMAIN = ConceptDomain("parity", "Parity of whole numbers", (
    PluginConcept("Even Number", "A whole number that 2 divides with no remainder.",
                  EvenNumber()),))
