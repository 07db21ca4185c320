"""Which exactly-graded concepts have use-task items, by scope name: the built-in domains' and
those of installed plugin domains (loaded with the catalog, `domains/plugins.py`), each able to
say whether a text is an instance (`InstanceTests`, what the audit's incoherence lens asks)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from verstehen.domains.base import ConceptTasks, InstanceCheck, InstanceTests, Item
from verstehen.domains.catalog import CONCEPTS, PAPER_CONCEPTS, PLUGINS
from verstehen.domains.game_theory.tasks import GAME_THEORY_TASKS
from verstehen.domains.poetry.tasks import POETRY_TASKS

if TYPE_CHECKING:
    import numpy as np

    from verstehen.grading import Graded

_EXTRA = {  # exactly checkable forms beyond the paper's 32 concepts
    "poetry/rhyme": "Perfect rhyme: identical sounds from the last stressed vowel on",
    "poetry/iambic-pentameter": "A line of five iambs (da-DUM x 5), within the stated tolerance",
}

EXACT_SCOPES: dict[str, str] = {  # the paper's, the extra forms, then the plugins'
    **{c.scope: f"{c.name}: {c.definition}" for c in PAPER_CONCEPTS if c.scope},
    **_EXTRA,
    **{c.scope: f"{c.name}: {c.definition}" for c in CONCEPTS if c.scope},
}


class WithoutInstanceTest:
    """A plugin concept's tasks that cannot tell an instance from a text alone: the incoherence
    lens gets "untested" with the reason, as for a built-in concept with no claim-free test."""

    instance_request = ""
    instance_tested = False

    def __init__(self, tasks: ConceptTasks) -> None:
        self._tasks = tasks
        self.key, self.name, self.phrasings = tasks.key, tasks.name, tasks.phrasings

    def classify_item(self, rng: np.random.Generator, positive: bool) -> Item:
        """A yes/no item whose true answer is `positive`."""
        return self._tasks.classify_item(rng, positive)

    def generate_item(self, rng: np.random.Generator) -> Item:
        """Ask for a new instance under constraints drawn from rng."""
        return self._tasks.generate_item(rng)

    def edit_item(self, rng: np.random.Generator, make_instance: bool) -> Item:
        """Ask to change a given example so it becomes an instance (or stops being one)."""
        return self._tasks.edit_item(rng, make_instance)

    def render(self, item: Item, phrasing: int) -> str:
        """The prompt text of `item` in one phrasing."""
        return self._tasks.render(item, phrasing)

    def max_tokens(self, item: Item) -> int:
        """Enough answer tokens for the reply the prompt asks for."""
        return self._tasks.max_tokens(item)

    def grade(self, item: Item, reply: str) -> Graded:
        """The plugin's grade of a reply."""
        return self._tasks.grade(item, reply)

    def reference(self, item: Item) -> str:
        """A reply the plugin's checker grades right."""
        return self._tasks.reference(item)

    def instance_check(self, text: str) -> InstanceCheck:
        """No instance test: None with the reason."""
        return InstanceCheck(None, f"the plugin concept {self.key} has no claim-free "
                                   "instance test")


def with_instance_test(tasks: ConceptTasks) -> ConceptTasks:
    """`tasks` when they are also InstanceTests, else wrapped in WithoutInstanceTest."""
    return tasks if isinstance(tasks, InstanceTests) else WithoutInstanceTest(tasks)


_TASKS: dict[str, ConceptTasks] = {
    **GAME_THEORY_TASKS, **POETRY_TASKS,
    **{c.tasks.key: with_instance_test(c.tasks) for domain in PLUGINS.domains
       for c in domain.concepts},
}


def concept_tasks(name: str) -> ConceptTasks | None:
    """The use-task items of the exactly-graded concept scope `name`, or None."""
    return _TASKS.get(name)
