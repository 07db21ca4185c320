"""The items a Potemkin benchmark run asks: a definition (the keystone) and use tasks per concept.

Items come from the concept-domain generators (exactly-graded concepts, graded by the checker)
or from a checkout of the published benchmark (classify graded by its labels, define, generate
and edit by a judge model or by people).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from verstehen.domains.base import LONG_ANSWER_TOKENS, SHORT_ANSWER_TOKENS, Item
from verstehen.domains.catalog import (
    BY_KEY,
    CONCEPTS,
    DOMAIN_ALIASES,
    DOMAINS,
    Concept,
    canonical_name,
    concept_by_name,
)
from verstehen.domains.registry import concept_tasks
from verstehen.errors import UserError
from verstehen.methods.potemkin.benchmark import Benchmark
from verstehen.prompts import prompt
from verstehen.wording import parameter

Task = Literal["define", "classify", "generate", "edit"]
ALL_TASKS: tuple[Task, ...] = ("define", "classify", "generate", "edit")
Grading = Literal["exact", "label", "judge"]
# answer budgets of benchmark items (generated items carry their own)
# room to reason before the answer, as the scopes give (domains.base)
BENCHMARK_TOKENS = {"define": LONG_ANSWER_TOKENS, "classify": SHORT_ANSWER_TOKENS,
                    "generate": LONG_ANSWER_TOKENS, "edit": LONG_ANSWER_TOKENS}


@dataclass(frozen=True)
class UseItem:
    """One question of a run."""

    id: str                 # unique within a run, stable across runs
    concept: Concept
    task: Task
    source: str             # "generated" or "benchmark"
    prompt: str
    grading: Grading        # exact: the checker; label: the benchmark's label; judge: model/people
    max_tokens: int
    label: bool | None = None   # the true answer of a classify item
    item: Item | None = None    # the domain item a checker grades


def comma_list(value: str | Sequence[str]) -> tuple[str, ...]:
    """The names in a comma-separated text, or in each text of a sequence, in order."""
    given = [value] if isinstance(value, str) else value
    return tuple(part.strip() for text in given for part in text.split(",") if part.strip())


def resolve_concepts(specs: Sequence[str] | None, default: Sequence[Concept]) -> list[Concept]:
    """Concepts from keys (a concept's scope is named by its key), paper names or domains
    (comma lists), in catalog order; a domain's other name is taken too."""
    if not specs:
        return list(default)
    chosen: set[str] = set()
    for text in (part.strip() for given in specs for part in given.split(",")):
        if not text:
            continue
        spec = canonical_name(text)
        if spec in DOMAINS:
            chosen.update(c.key for c in CONCEPTS if c.domain == spec)
        elif spec in BY_KEY:
            chosen.add(spec)
        elif (named := concept_by_name(text)) is not None:
            chosen.add(named.key)
        else:
            raise UserError(f"unknown concept {text!r}: give a key such as "
                            "game-theory/pure-nash, a name, or a domain (`verstehen concepts` "
                            "lists them)")
    return [c for c in CONCEPTS if c.key in chosen]


def define_item(concept: Concept, benchmark: Benchmark | None) -> UseItem:
    """The keystone question: the benchmark's own when it has one, else ours."""
    text = next((b.prompt for b in benchmark.for_concept(concept.key, "define")), None) \
        if benchmark is not None else None
    if text is None:
        text = prompt("potemkin/define", name=concept.name,
                      domain=DOMAINS[concept.domain].lower())
    return UseItem(f"{concept.key}/define", concept, "define",
                   "benchmark" if benchmark is not None else "generated", text, "judge",
                   BENCHMARK_TOKENS["define"])


FIRST_SPELLING = {new: old for old, new in DOMAIN_ALIASES.items()}


def _first_key(concept: Concept) -> str:
    # the key as runs were first written ("literary/haiku"), so a seed draws the same items
    head, sep, rest = concept.key.partition("/")
    return FIRST_SPELLING.get(head, head) + sep + rest


def generated_items(concept: Concept, task: Task, count: int, seed: int) -> list[UseItem]:
    """`count` fresh items of an exactly-graded concept's task, in the paper's phrasing."""
    tasks = concept_tasks(concept.scope) if concept.scope else None
    if tasks is None:
        raise UserError(f"{concept.key} is graded by a judge and has no generated items: "
                        f"pass {parameter('benchmark_dir')} to use the published benchmark's "
                        "items")
    out = []
    for i in range(count):
        rng = np.random.default_rng([seed, zlib.crc32(_first_key(concept).encode()),
                                     ALL_TASKS.index(task), i])
        if task == "classify":
            item = tasks.classify_item(rng, i % 2 == 0)
        elif task == "generate":
            item = tasks.generate_item(rng)
        else:
            item = tasks.edit_item(rng, i % 2 == 0)
        out.append(UseItem(f"{concept.key}/{task}/g{i}", concept, task, "generated",
                           tasks.render(item, 0), "exact", tasks.max_tokens(item),
                           item.answer, item))
    return out


def benchmark_items(concept: Concept, task: Task, benchmark: Benchmark,
                    cap: int | None) -> list[UseItem]:
    """The published benchmark's items of one concept and task (the first `cap` of them)."""
    found = benchmark.for_concept(concept.key, task)[:cap]
    return [UseItem(f"{concept.key}/{b.id}", concept, task, "benchmark", b.prompt,
                    "label" if task == "classify" else "judge", BENCHMARK_TOKENS[task], b.label)
            for b in found]


def build_items(concepts: Sequence[Concept], tasks: Sequence[Task], *, source: str,
                per_concept: int | None, seed: int,
                benchmark: Benchmark | None) -> list[UseItem]:
    """Every item of a run: per concept, the definition first, then the use tasks."""
    items: list[UseItem] = []
    for concept in concepts:
        if "define" in tasks:
            items.append(define_item(concept, benchmark))
        for task in (t for t in tasks if t != "define"):
            if source in ("benchmark", "both"):
                assert benchmark is not None
                items += benchmark_items(concept, task, benchmark, per_concept)
            if source in ("generated", "both") and (concept.scope or source == "generated"):
                items += generated_items(concept, task, per_concept or 4, seed)
    return items
