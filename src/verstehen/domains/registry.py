"""Which exactly-graded concepts have use-task items, by scope name: the built-in domains' and
those of installed plugin domains (`domains/plugins.py`, loaded with the catalog when first
asked for), each able to say whether a text is an instance (`InstanceTests`, what the audit's
incoherence lens asks). A plugin concept's tasks come wrapped (`guarded.GuardedTasks`): what
its code raises is one line naming the concept, never a traceback."""

from __future__ import annotations

from collections.abc import Mapping

from verstehen.domains.base import ConceptTasks, InstanceTests
from verstehen.domains.catalog import CONCEPTS, PAPER_CONCEPTS, installed
from verstehen.domains.game_theory.tasks import GAME_THEORY_TASKS
from verstehen.domains.guarded import GuardedTasks
from verstehen.domains.poetry.tasks import POETRY_TASKS
from verstehen.plugins import LazyMapping, once

_EXTRA = {  # exactly checkable forms beyond the paper's 32 concepts
    "poetry/rhyme": "Perfect rhyme: identical sounds from the last stressed vowel on",
    "poetry/iambic-pentameter": "A line of five iambs (da-DUM x 5), within the stated tolerance",
}


@once
def _exact_scopes() -> dict[str, str]:
    """The paper's scopes, the extra forms, then the plugins'."""
    return {
        **{c.scope: f"{c.name}: {c.definition}" for c in PAPER_CONCEPTS if c.scope},
        **_EXTRA,
        **{c.scope: f"{c.name}: {c.definition}" for c in CONCEPTS if c.scope},
    }


# scope name -> "Name: definition"; read (the plugin domains loaded) at its first use
EXACT_SCOPES: Mapping[str, str] = LazyMapping(_exact_scopes)


def with_instance_test(tasks: ConceptTasks) -> ConceptTasks:
    """`tasks` when they are also InstanceTests, else wrapped in one that says it has none."""
    return tasks if isinstance(tasks, InstanceTests) else GuardedTasks(tasks)


@once
def _plugin_tasks() -> dict[str, ConceptTasks]:
    """The plugin concepts' tasks, each wrapped (module doc)."""
    return {c.tasks.key: GuardedTasks(c.tasks) for domain in installed().domains
            for c in domain.concepts}


def concept_tasks(name: str) -> ConceptTasks | None:
    """The use-task items of the exactly-graded concept scope `name`, or None (the plugin
    domains are read only for a name no built-in domain has)."""
    return GAME_THEORY_TASKS.get(name) or POETRY_TASKS.get(name) or _plugin_tasks().get(name)
