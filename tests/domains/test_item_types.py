"""The declared item types describe the JSON the concepts write.

`Item.data` is read back through a cast (`_classify_data` and the like), which mypy cannot check,
so these tests check it at run time: every item of every concept has exactly the keys of its
declared TypedDict, each value of the declared type. The concept -> type table is written out by
hand here (from each concept's docstring), not read from the classes' generic parameters.
"""

from __future__ import annotations

import types
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import numpy as np
import pytest

from verstehen.domains.base import ConceptTasks, Item
from verstehen.domains.game_theory.tasks import GAME_THEORY_TASKS
from verstehen.domains.game_theory.tasks.data import GameEditData
from verstehen.domains.game_theory.tasks.dominance import (
    DominanceConstraints,
    IesdsConstraints,
    PlayerClaim,
    SurvivorsClaim,
    WeakDominanceConstraints,
)
from verstehen.domains.game_theory.tasks.equilibria import (
    BestResponseClaim,
    BestResponseConstraints,
    CellClaim,
    MixedNashConstraints,
    MixedProfileClaim,
    NashConstraints,
)
from verstehen.domains.game_theory.tasks.outcomes import (
    ParetoConstraints,
    PayoffRowConstraints,
    WholeGameClaim,
)
from verstehen.domains.poetry.task_base import ExampleData, MaskedEditData, WordConstraint
from verstehen.domains.poetry.tasks import POETRY_TASKS
from verstehen.domains.poetry.tasks_forms import FeetConstraint

SEEDS = 30
# claim and constraints type of each game concept
GAME_TYPES: dict[str, tuple[Any, Any]] = {
    "game-theory/strict-dominance": (PlayerClaim, DominanceConstraints),
    "game-theory/weak-dominance": (PlayerClaim, WeakDominanceConstraints),
    "game-theory/iterated-dominance": (SurvivorsClaim, IesdsConstraints),
    "game-theory/pure-nash": (CellClaim, NashConstraints),
    "game-theory/mixed-nash": (MixedProfileClaim, MixedNashConstraints),
    "game-theory/pareto-optimality": (CellClaim, ParetoConstraints),
    "game-theory/best-response": (BestResponseClaim, BestResponseConstraints),
    "game-theory/zero-sum": (WholeGameClaim, PayoffRowConstraints),
    "game-theory/symmetric": (WholeGameClaim, PayoffRowConstraints),
}
# generate-item type of each poetry concept
POETRY_GENERATE: dict[str, Any] = {
    "poetry/haiku": WordConstraint,
    "poetry/shakespearean-sonnet": WordConstraint,
    "poetry/iambic-pentameter": WordConstraint,
    "poetry/rhyme": WordConstraint,
    "poetry/slant-rhyme": WordConstraint,
    "poetry/anapest": FeetConstraint,
}


def conforms(value: object, hint: Any) -> bool:
    """Whether a JSON value has the type `hint` (TypedDicts exactly: no key missing or extra)."""
    origin, args = get_origin(hint), get_args(hint)
    if hint is type(None):
        return value is None
    if origin is Literal:
        return value in args
    if origin in (Union, types.UnionType):
        return any(conforms(value, a) for a in args)
    if origin is list:
        return isinstance(value, list) and all(conforms(v, args[0]) for v in value)
    typed_dict = origin or hint  # a generic TypedDict's parameters are filled in below
    if isinstance(typed_dict, type) and hasattr(typed_dict, "__required_keys__"):
        filled = dict(zip(getattr(typed_dict, "__parameters__", ()), args, strict=False))
        hints = {k: filled.get(h, h) for k, h in get_type_hints(typed_dict).items()}
        return (isinstance(value, dict) and set(value) == set(hints)
                and all(conforms(value[k], h) for k, h in hints.items()))
    if hint is int:  # a bool is an int in Python, never in these records
        return type(value) is int
    return isinstance(value, hint)


def _items(tasks: ConceptTasks, seed: int) -> dict[str, Item]:
    rng = np.random.default_rng(seed)
    return {"classify": tasks.classify_item(rng, bool(seed % 2)),
            "generate": tasks.generate_item(rng),
            "edit": tasks.edit_item(rng, bool(seed % 2))}


def test_conforms_tells_a_record_from_its_near_misses() -> None:
    # worked by hand: CellClaim is {"cell": list[int]}, nothing more
    assert conforms({"cell": [0, 1]}, CellClaim)
    assert not conforms({"cell": [0, "1"]}, CellClaim)
    assert not conforms({"cell": [0, 1], "player": 1}, CellClaim)
    assert not conforms({}, CellClaim)
    assert not conforms({"player": True}, PlayerClaim)
    assert conforms({}, WholeGameClaim)
    edit = {"game": [[["1", "2"]]], "claim": {"cell": [0, 0]}, "make_instance": True}
    assert conforms(edit, GameEditData[CellClaim])
    assert not conforms({**edit, "claim": {"player": 1}}, GameEditData[CellClaim])
    assert conforms({"shape": [3, 3], "count": 2, "unique": None}, ParetoConstraints)
    assert not conforms({"shape": [3, 3], "count": 2, "unique": "some"}, ParetoConstraints)


@pytest.mark.parametrize("key", sorted(GAME_TYPES))
def test_game_items_have_the_declared_layout(key: str) -> None:
    claim, constraints = GAME_TYPES[key]
    for seed in range(SEEDS):
        items = _items(GAME_THEORY_TASKS[key], seed)
        shown = items["classify"].data
        assert set(shown) == {"game", "claim"} and conforms(shown["claim"], claim), shown
        assert conforms(shown["game"], list[list[list[str]]])
        asked = items["generate"].data
        assert set(asked) == {"constraints"}, asked
        assert conforms(asked["constraints"], constraints), asked
        assert conforms(items["edit"].data, GameEditData[claim]), items["edit"].data


@pytest.mark.parametrize("key", sorted(POETRY_GENERATE))
def test_poetry_items_have_the_declared_layout(key: str) -> None:
    for seed in range(SEEDS):
        items = _items(POETRY_TASKS[key], seed)
        assert conforms(items["classify"].data, ExampleData), items["classify"].data
        assert conforms(items["generate"].data, POETRY_GENERATE[key]), items["generate"].data
        assert conforms(items["edit"].data, MaskedEditData), items["edit"].data


def test_every_concept_is_in_a_table() -> None:
    assert set(GAME_TYPES) == set(GAME_THEORY_TASKS)
    assert set(POETRY_GENERATE) == set(POETRY_TASKS)
