"""Concept items: generate and grade 10,000 items of each concept and task on one core (< 10 s).

For every exactly-graded concept, first as its scope (the three tasks mixed, as `--scope NAME`
draws them) and then task by task (classify, generate, edit), this draws N items through the
certification scope and grades one reply per item: the concept's reference reply
(`ConceptTasks.reference`: the right Yes/No, a game built to meet a generate item's
constraints, the shown game edited, a poem or word built from the lexicon, an edit item's
stored solution), so the checker runs its full accepting path; every item has one (a fixed
reply, an instance drawn before timing, is kept only as a fallback). It prints
CPU seconds per 10,000 items (building the reference replies is timed apart, column "ref s":
it is not part of generating and grading), the ratio to the 10 s target, and the share of
referenced replies graded right (100% is a consistency check of generators against checkers).
One-time loads
(the pronouncing dictionary, nashpy) are timed apart. The process pins itself to one core
where the OS allows it.

Run: python bench/concept_speed.py [--items 10000] [--scope game-theory/pure-nash ...]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from verstehen.domains.base import TASK_KINDS, ConceptTasks
from verstehen.domains.registry import EXACT_SCOPES, concept_tasks
from verstehen.methods.certification.scopes.concepts import ConceptScope

TARGET_SECONDS = 10.0


def fixed_reply(tasks: ConceptTasks) -> str:
    """An instance of the concept as a reply: a poem's text, or a game after <OUTPUT>."""
    data = tasks.classify_item(np.random.default_rng(1), True).data
    if "game" in data:
        from verstehen.domains.game_theory.game import Game

        return f"<OUTPUT>\n{Game.from_json(data['game']).python_literal()}"
    return str(data["example"])


def time_task(scope: ConceptScope, items: int, seed: int
              ) -> tuple[float, float, float | None]:
    """CPU seconds to sample and grade `items` questions, seconds spent building reference
    replies (not part of it), and the share of references graded right."""
    rng = np.random.default_rng(seed)
    fallback = fixed_reply(scope.tasks)
    right = referenced = 0
    building = 0.0
    started = time.process_time()
    for _ in range(items):
        question = scope.sample(rng)
        before = time.process_time()
        reference = scope.tasks.reference(scope.item_of(question))
        building += time.process_time() - before
        graded = scope.grade(question, fallback if reference is None else reference)
        if reference is not None:
            referenced += 1
            right += graded.score == 1.0
    total = time.process_time() - started
    return total - building, building, right / referenced if referenced else None


def main() -> int:
    """Time every scope and task; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--scope", action="append", choices=sorted(EXACT_SCOPES))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    scale = 10_000 / args.items
    print(f"{'scope':<36} {'task':<9} {'load s':>7} {'s/10k':>7} {'ratio':>6} {'ref s':>6} "
          f"{'right':>7}")
    worst = {"concept": 0.0, "task": 0.0}
    for name in args.scope or list(EXACT_SCOPES):
        started = time.process_time()
        tasks = concept_tasks(name)
        assert tasks is not None, name
        scopes = {"all": ConceptScope(tasks)} | {k: ConceptScope(tasks, (k,)) for k in TASK_KINDS}
        time_task(scopes["classify"], 1, args.seed)  # loads dictionaries and libraries
        load = time.process_time() - started
        for kind, scope in scopes.items():
            seconds, building, right = time_task(scope, args.items, args.seed)
            per_10k = seconds * scale
            level = "concept" if kind == "all" else "task"
            worst[level] = max(worst[level], per_10k)
            shown = "-" if right is None else f"{right:.1%}"
            print(f"{name:<36} {kind:<9} {load:>7.2f} {per_10k:>7.2f} "
                  f"{per_10k / TARGET_SECONDS:>6.2f} {building * scale:>6.2f} {shown:>7}")
            load = 0.0
    for level, label in (("concept", "concept (its scope's mix of the three tasks)"),
                         ("task", "single task")):
        verdict = "PASS" if worst[level] < TARGET_SECONDS else "MISS"
        print(f"slowest {label}: {worst[level]:.2f} CPU s per 10,000 items against the "
              f"{TARGET_SECONDS:.0f} s target (ratio {worst[level] / TARGET_SECONDS:.2f}): "
              f"{verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
