"""Which exactly-graded concepts have use-task items, by scope name."""

from __future__ import annotations

from verstehen.domains.base import ConceptTasks
from verstehen.domains.catalog import CONCEPTS
from verstehen.domains.game_theory.tasks import GAME_THEORY_TASKS
from verstehen.domains.poetry.tasks import POETRY_TASKS

_EXTRA = {  # exactly checkable forms beyond the paper's 32 concepts
    "poetry/rhyme": "Perfect rhyme: identical sounds from the last stressed vowel on",
    "poetry/iambic-pentameter": "A line of five iambs (da-DUM x 5), within the stated tolerance",
}

EXACT_SCOPES: dict[str, str] = {
    **{c.scope: f"{c.name}: {c.definition}" for c in CONCEPTS if c.scope},
    **_EXTRA,
}
_TASKS: dict[str, ConceptTasks] = {**GAME_THEORY_TASKS, **POETRY_TASKS}


def concept_tasks(name: str) -> ConceptTasks | None:
    """The use-task items of the exactly-graded concept scope `name`, or None."""
    return _TASKS.get(name)
