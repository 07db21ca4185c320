"""Which question a run asks at each index.

Question `index` of a run with `seed` is drawn from its own generator, `default_rng([seed,
index])`, so any prefix of a run is reproducible and a resumed run asks what it would have.

A scope whose questions come in kinds (`StratifiedScope`: a concept's classify, generate and
edit items) is drawn in blocks: each block of `len(scope.strata)` consecutive indices asks every
stratum once, in an order shuffled per block. So every look of the sequential test at a
multiple of the block (8, 16, 32, ... for a block of 4) rests on each kind in its fixed share,
and the first look already covers every kind. The sample is then independent draws of unequal
distributions whose average is the scope's; the KL-Chernoff bounds hold for such sums as for
identical draws (Hoeffding 1963, Theorem 1, which assumes independence and range [0, 1] only),
and at a multiple of the block the average is exactly the scope's mean.

Phrasing: a question of a scope with a benchmark's wording (`BenchmarkWorded`: the concepts,
whose phrasing 0 is the Potemkin benchmark's prompt) is asked in that wording, unless the run
asks for every phrasing (`all_phrasings`). Other scopes keep the phrasing drawn with the
question, as the paper's scopes include each question's natural rephrasings.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

import numpy as np

from verstehen.scopes.base import Question, Scope

# how a run draws its questions (run.json's config says so: a run of an older draw is not resumed)
DRAW = "stratified"
# "benchmark": a benchmark's wording where the scope has one, else drawn; "all": always drawn
PHRASINGS = ("benchmark", "all")
_ORDER_STREAM = 1  # a third seed word: the block order never shares the items' generator


@runtime_checkable
class StratifiedScope(Scope, Protocol):
    """A scope whose questions fall into strata drawn in fixed shares.

    `strata` is one block, each stratum listed as often as its share: ("classify:yes",
    "classify:no", "generate", "edit") gives classify 1/2, generate 1/4, edit 1/4.
    """

    strata: tuple[str, ...]

    def sample_stratum(self, rng: np.random.Generator, stratum: str) -> Question:
        """Draw a question of one stratum (in a phrasing also drawn from rng)."""
        ...


@runtime_checkable
class BenchmarkWorded(Scope, Protocol):
    """A scope one of whose phrasings is a published benchmark's wording."""

    benchmark_phrasing: int


def stratum_at(strata: tuple[str, ...], seed: int, index: int) -> str:
    """The stratum of question `index`: each block of len(strata) indices holds every entry
    once, in an order shuffled by (seed, block)."""
    size = len(strata)
    order = np.random.default_rng([seed, index // size, _ORDER_STREAM]).permutation(size)
    return strata[int(order[index % size])]


def question_at(scope: Scope, seed: int, index: int,
                keep: Callable[[Question], bool] | None = None, *,
                all_phrasings: bool = False) -> Question:
    """Question `index` of a run: stratified when the scope is, in the benchmark's wording
    when the scope has one (unless `all_phrasings`); `keep` restricts the draw (redrawn until
    it accepts; a restricted draw is not stratified, since keep may refuse a whole stratum)."""
    rng = np.random.default_rng([seed, index])
    if keep is None and isinstance(scope, StratifiedScope) and len(scope.strata) > 1:
        stratum = stratum_at(scope.strata, seed, index)

        def draw() -> Question:
            return scope.sample_stratum(rng, stratum)
    else:
        def draw() -> Question:
            return scope.sample(rng)
    question = draw()
    while keep is not None and not keep(question):  # the restriction of Δ_Q to what keep allows
        question = draw()
    if (not all_phrasings and isinstance(scope, BenchmarkWorded)
            and question.phrasing != scope.benchmark_phrasing):
        question = scope.rephrase(question, scope.benchmark_phrasing)
    return question
