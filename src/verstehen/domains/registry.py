"""Which exactly-graded concepts have use-task items, by scope name, loaded only when asked for.

`EXACT_SCOPES` names them without importing the domains (the CLI lists scopes without paying
for numpy or the pronouncing dictionary); `concept_tasks(name)` loads the one asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from verstehen.domains.catalog import CONCEPTS

if TYPE_CHECKING:
    from verstehen.domains.base import ConceptTasks

_EXTRA = {  # exactly checkable forms beyond the paper's 32 concepts
    "poetry/rhyme": "Perfect rhyme: identical sounds from the last stressed vowel on",
    "poetry/iambic-pentameter": "A line of five iambs (da-DUM x 5), within the stated tolerance",
}

EXACT_SCOPES: dict[str, str] = {
    **{c.scope: f"{c.name}: {c.definition}" for c in CONCEPTS if c.scope},
    **_EXTRA,
}


def concept_tasks(name: str) -> ConceptTasks | None:
    """The use-task items of the exactly-graded concept scope `name`, or None."""
    if name.startswith("game-theory/"):
        from verstehen.domains.game_theory.tasks import GAME_THEORY_TASKS as tasks
    elif name.startswith("poetry/"):
        from verstehen.domains.poetry.tasks import POETRY_TASKS as tasks
    else:
        return None
    return tasks.get(name)
