"""Claim-free instance tests: is a generated text REALLY an instance of an exact concept?

The incoherence procedure (paper section 4.1) has a model generate an instance or a non-instance
of a concept and then classify its own output. `instance_check(scope, reply)` says whether the
reply truly is an instance, by asking the concept's domain (`domains.base.InstanceTests`): no
claim (a cell, a strategy, a mix) comes with the reply, so the domain reads each concept as a
property of the whole game or text (`domains/game_theory/instances.py`, the poetry concepts'
own `check`). An unreadable reply is None with the reason ("the reply professes not to know"
when it does). `INSTANCE_REQUESTS` holds, per exact scope, the format request to append to a
generation prompt so that the reply can be read.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet

from verstehen.domains.base import InstanceCheck, InstanceTests
from verstehen.domains.catalog import CONCEPTS
from verstehen.domains.registry import concept_tasks
from verstehen.plugins import LazyMapping, LazySet, once

__all__ = ["EXACT_SCOPES", "INSTANCE_REQUESTS", "INSTANCE_TESTED", "InstanceCheck",
           "instance_check"]


def _instance_tests(scope: str) -> InstanceTests:
    tasks = concept_tasks(scope)
    if not isinstance(tasks, InstanceTests):
        raise ValueError(f"{scope!r} is an exact scope whose domain has no instance test")
    return tasks


@once
def _tests() -> dict[str, InstanceTests]:
    """Each exact scope's instance tests (the plugin domains' too: read at the first use)."""
    return {scope: _instance_tests(scope)
            for scope in sorted({c.scope for c in CONCEPTS if c.scope})}


@once
def _tested() -> frozenset[str]:
    return frozenset(scope for scope, tests in _tests().items() if tests.instance_tested)


@once
def _requests() -> dict[str, str]:
    return {scope: tests.instance_request for scope, tests in _tests().items()}


EXACT_SCOPES: AbstractSet[str] = LazySet(lambda: _tests().keys())
INSTANCE_TESTED: AbstractSet[str] = LazySet(_tested)
INSTANCE_REQUESTS: Mapping[str, str] = LazyMapping(_requests)


def instance_check(scope: str, text: str) -> InstanceCheck:
    """Whether the reply `text` is an instance of the exact concept `scope` (module doc).

    ValueError when `scope` is not an exactly-graded scope of the catalog.
    """
    if scope not in _tests():
        raise ValueError(f"{scope!r} is not an exactly-graded scope: {sorted(EXACT_SCOPES)}")
    return _tests()[scope].instance_check(text)
