"""Certification scopes over exactly-graded concepts: `game-theory/pure-nash`, `poetry/haiku/edit`.

`<concept>` draws each question's task uniformly from classify, generate and edit;
`<concept>/<task>` asks one task only. Classify items are instances or non-instances with
probability 1/2 each, edit items ask to make or to break an instance with probability 1/2 each.
Scores come from the concept's checker: 1 right, 0 ridiculous (wrong, unreadable or "I don't
know"); no partial credit.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

import numpy as np

from verstehen.domains.base import TASK_KINDS, ConceptTasks, Item, TaskKind
from verstehen.grading import Graded
from verstehen.scopes.base import Question


def _item_id(key: str, item: Item) -> str:
    blob = json.dumps([key, item.kind, item.answer, item.data], sort_keys=True)
    return hashlib.sha1(blob.encode()).hexdigest()[:16]


class ConceptScope:
    """A scope asking one concept's use tasks, graded by the concept's checker."""

    def __init__(self, tasks: ConceptTasks, kinds: Sequence[TaskKind] = TASK_KINDS) -> None:
        self.tasks = tasks
        self.kinds = tuple(kinds)
        whole = self.kinds == TASK_KINDS
        self.name = tasks.key if whole else f"{tasks.key}/{'+'.join(self.kinds)}"
        which = "classify, generate and edit" if whole else " and ".join(self.kinds)
        self.description = f"{tasks.name}: {which} questions graded exactly by its checker"
        self.phrasings = tasks.phrasings
        probe = np.random.default_rng(0)  # one item per task: the longest reply any may need
        self.answer_tokens = max(tasks.max_tokens(self._item_of_kind(kind, probe))
                                 for kind in self.kinds)

    def _item(self, rng: np.random.Generator) -> Item:
        return self._item_of_kind(self.kinds[int(rng.integers(len(self.kinds)))], rng)

    def _item_of_kind(self, kind: TaskKind, rng: np.random.Generator) -> Item:
        if kind == "classify":
            return self.tasks.classify_item(rng, bool(rng.random() < 0.5))
        if kind == "generate":
            return self.tasks.generate_item(rng)
        return self.tasks.edit_item(rng, bool(rng.random() < 0.5))

    def _question(self, item: Item, phrasing: int) -> Question:
        return Question(
            id=_item_id(self.tasks.key, item), prompt=self.tasks.render(item, phrasing),
            answer=item.answer, phrasing=phrasing, family=item.kind,
            data={"kind": item.kind, "item": item.data},
            max_tokens=self.tasks.max_tokens(item))

    def sample(self, rng: np.random.Generator) -> Question:
        """Draw a task, then an item of it, then a phrasing."""
        item = self._item(rng)
        return self._question(item, int(rng.integers(self.phrasings)))

    def rephrase(self, question: Question, phrasing: int) -> Question:
        """The same item in another phrasing."""
        return self._question(self.item_of(question), phrasing)

    @staticmethod
    def item_of(question: Question) -> Item:
        """The item a question was rendered from."""
        return Item(question.data["kind"], question.answer, question.data["item"])

    def grade(self, question: Question, answer: str) -> Graded:
        """The concept's checker grades the reply."""
        return self.tasks.grade(self.item_of(question), answer)

    def score(self, question: Question, answer: str) -> float:
        """The graded score: 1 right, 0 ridiculous."""
        return self.grade(question, answer).score
