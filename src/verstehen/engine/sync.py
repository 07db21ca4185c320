"""Run a coroutine to the end from synchronous code, also inside a running event loop.

A notebook (Jupyter) already runs an event loop in its thread, where `asyncio.run` refuses to
start; there the coroutine runs on a worker thread with a loop of its own.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """The coroutine's result: on this thread when no loop runs here, else on a worker."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="verstehen") as pool:
        return pool.submit(asyncio.run, coro).result()


P = ParamSpec("P")


def synchronous(fn: Callable[P, Coroutine[Any, Any, T]], name: str) -> Callable[P, T]:
    """A function `name` with `fn`'s signature and docstring that runs it to the end."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        return run_sync(fn(*args, **kwargs))

    run.__name__ = run.__qualname__ = name
    return run
