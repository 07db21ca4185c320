"""Certification scopes over exactly-graded concepts: `game-theory/pure-nash`, `poetry/haiku/edit`.

`<concept>` asks classify, generate and edit items in the shares of its strata: classify 1/2
(an instance and a near miss, 1/4 each), generate 1/4, edit 1/4; a run draws them in blocks of
four that hold each stratum once (`scopes.draw`), so every look of 8, 16, 32, ... questions
rests on every task in these shares. `<concept>/<task>` asks one task only (classify: instances
and near misses in blocks of two). Edit items ask to make or to break an instance with
probability 1/2 each. Classify counts twice because a yes/no question can be guessed: a model
that guesses every classification and writes every instance right scores 0.75 on average, below
the audit's passing grade of 0.8 (with equal shares of the three tasks it would score 0.83).
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

# each task's strata, listed as often as their share within the task
STRATA: dict[TaskKind, tuple[str, ...]] = {
    "classify": ("classify:yes", "classify:no"), "generate": ("generate",), "edit": ("edit",)}


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
        self.benchmark_phrasing = 0  # the Potemkin benchmark's prompts (each concept's render)
        self.strata = tuple(s for kind in self.kinds for s in STRATA[kind])
        probe = np.random.default_rng(0)  # one item per task: the longest reply any may need
        self.answer_tokens = max(tasks.max_tokens(self._item_of_kind(kind, probe))
                                 for kind in self.kinds)

    def _item_of_kind(self, kind: TaskKind, rng: np.random.Generator) -> Item:
        if kind == "classify":
            return self.tasks.classify_item(rng, bool(rng.random() < 0.5))
        if kind == "generate":
            return self.tasks.generate_item(rng)
        return self.tasks.edit_item(rng, bool(rng.random() < 0.5))

    def _item_of_stratum(self, stratum: str, rng: np.random.Generator) -> Item:
        if stratum not in self.strata:
            raise ValueError(f"{self.name} has no stratum {stratum!r}: choose one of "
                             f"{', '.join(sorted(set(self.strata)))}")
        if stratum.startswith("classify:"):
            return self.tasks.classify_item(rng, stratum == "classify:yes")
        return self._item_of_kind(stratum, rng)  # type: ignore[arg-type]

    def _question(self, item: Item, phrasing: int) -> Question:
        return Question(
            id=_item_id(self.tasks.key, item), prompt=self.tasks.render(item, phrasing),
            answer=item.answer, phrasing=phrasing, family=item.kind,
            data={"kind": item.kind, "item": item.data},
            max_tokens=self.tasks.max_tokens(item))

    def sample(self, rng: np.random.Generator) -> Question:
        """Draw a stratum (in its share), then an item of it, then a phrasing."""
        return self.sample_stratum(rng, self.strata[int(rng.integers(len(self.strata)))])

    def sample_stratum(self, rng: np.random.Generator, stratum: str) -> Question:
        """An item of one stratum ("classify:yes", "classify:no", "generate", "edit"), then a
        phrasing."""
        item = self._item_of_stratum(stratum, rng)
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
