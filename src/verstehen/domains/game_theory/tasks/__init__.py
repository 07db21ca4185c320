"""The nine game-theory concepts' classify / generate / edit items, by catalog key.

Each concept is a `GameConcept` (tasks.base: item layout, prompts, grading); its claims and
constraints are documented in tasks.dominance, tasks.equilibria and tasks.outcomes, and the
definitions its checker uses in checks.
"""

from __future__ import annotations

from verstehen.domains.base import ConceptTasks
from verstehen.domains.game_theory.tasks.dominance import (
    IteratedDominance,
    StrictDominance,
    WeakDominance,
)
from verstehen.domains.game_theory.tasks.equilibria import BestResponse, MixedNash, PureNash
from verstehen.domains.game_theory.tasks.outcomes import Pareto, Symmetric, ZeroSum

_ALL = (StrictDominance(), WeakDominance(), IteratedDominance(), PureNash(), MixedNash(),
        Pareto(), BestResponse(), ZeroSum(), Symmetric())

GAME_THEORY_TASKS: dict[str, ConceptTasks] = {t.key: t for t in _ALL}
