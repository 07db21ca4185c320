"""A concept domain whose tasks raise or give what they may not, one concept for each place:
drawing an item, rendering it, grading a reply, giving a value of the wrong type."""

from __future__ import annotations

import numpy as np
from verstehen_echo_plugin.parity import EvenNumber

from verstehen.domains.base import Item
from verstehen.domains.plugins import ConceptDomain, PluginConcept
from verstehen.grading import Graded


class Unprintable(Exception):
    """Raised by the grading concept: its message cannot be read either."""

    def __str__(self) -> str:
        raise ValueError("no message")


class FailsToDraw(EvenNumber):
    """Every item it draws raises."""

    key = "boom/draw"

    def classify_item(self, rng: np.random.Generator, positive: bool) -> Item:
        raise RuntimeError("no classify item today")

    def generate_item(self, rng: np.random.Generator) -> Item:
        raise RuntimeError("no generate item today")

    def edit_item(self, rng: np.random.Generator, make_instance: bool) -> Item:
        raise RuntimeError("no edit item today")


class FailsToGrade(EvenNumber):
    """Its items render, but grading a reply raises an exception that cannot be printed."""

    key = "boom/grade"

    def grade(self, item: Item, reply: str) -> Graded:
        raise Unprintable()


class RendersANumber(EvenNumber):
    """Its render gives an int, not the prompt's text."""

    key = "boom/render"

    def render(self, item: Item, phrasing: int) -> str:
        return 42  # type: ignore[return-value]


DOMAIN = ConceptDomain("boom", "Concepts that fail", (
    PluginConcept("Fails To Draw", "Its items cannot be drawn.", FailsToDraw()),
    PluginConcept("Fails To Grade", "Its replies cannot be graded.", FailsToGrade()),
    PluginConcept("Renders A Number", "Its prompts are numbers.", RendersANumber()),
))
