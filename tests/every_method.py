"""Tests that every method gets, whatever its name: parametrised over the registry's methods or
run kinds (read when the tests are collected), each case named by its kind (`kind.kind`) or
its method's name and marked `every_method`; a kind's run folder comes from its own example
(`RunKind.example`, made once per session by `export/made_runs.py`). No test names the
built-in methods: a method added to BUILT_IN brings its cases with it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import pytest

from verstehen.methods import registry
from verstehen.methods.contract import RunKind

F = TypeVar("F", bound=Callable[..., Any])
Kind = RunKind[Any]


def each_kind(where: Callable[[Kind], bool] = lambda kind: True) -> Callable[[F], F]:
    """Run the test once per run kind (`kind`) that `where` keeps, marked every_method."""
    kinds = [kind for kind in registry.run_kinds() if where(kind)]

    def decorate(test: F) -> F:
        test = pytest.mark.parametrize("kind", kinds, ids=[k.kind for k in kinds])(test)
        return pytest.mark.every_method(test)

    return decorate


def each_method(test: F) -> F:
    """Run the test once per method (`method`), marked every_method."""
    methods = registry.methods()
    test = pytest.mark.parametrize("method", methods, ids=[m.name for m in methods])(test)
    return pytest.mark.every_method(test)
