"""A plugin concept's tasks as verstehen calls them (`domains/registry.py` wraps each one).

Tasks that are no `InstanceTests` get one that says there is none: the incoherence lens then
gets "untested" with the reason, as for a built-in concept with no claim-free test.

Whatever the plugin's code raises while an item is drawn, rendered, sized, graded or its
reference or instance test is made (a SystemExit too; Ctrl-C goes through), and a value of the
wrong type it returns, is a `PluginError`: one line naming the concept and what failed, exit 2,
never a traceback. A run stops there, marked failed, as for any error a user can fix: a grade
the plugin could not give is not recorded as the model's, and the finished calls are cached,
so `--resume` goes on once the plugin is fixed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from verstehen.domains.base import ConceptTasks, InstanceCheck, InstanceTests, Item
from verstehen.grading import Graded
from verstehen.plugins import PluginError, exception_line

if TYPE_CHECKING:
    import numpy as np

T = TypeVar("T")


class GuardedTasks:
    """A plugin concept's tasks whose failures are PluginErrors naming the concept, with an
    instance test that says so when the plugin has none (module doc)."""

    def __init__(self, tasks: ConceptTasks) -> None:
        self._tasks = tasks
        # checked when the domain was loaded (domains/plugins.py)
        self.key, self.name, self.phrasings = tasks.key, tasks.name, tasks.phrasings

    def _call(self, what: str, returns: type[T], call: Callable[[], object]) -> T:
        """`call()` when it returns a `returns`; PluginError saying what failed otherwise."""
        try:
            value = call()
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # whatever a third party's code raises
            raise PluginError(f"plugin concept {self.key!r} failed in its {what}: "
                              f"{exception_line(exc)}") from exc
        if not isinstance(value, returns) or (returns is int and isinstance(value, bool)):
            raise PluginError(f"plugin concept {self.key!r}: its {what} gave a "
                              f"{type(value).__name__}, not a {returns.__name__}")
        return value

    def _item(self, what: str, call: Callable[[], object]) -> Item:
        """An item the plugin made, checked to hold JSON values only (what `Item` asks)."""
        item = self._call(what, Item, call)
        try:
            json.dumps([item.kind, item.answer, item.data])
        except (TypeError, ValueError) as exc:
            raise PluginError(f"plugin concept {self.key!r}: its {what} made an item whose "
                              f"data is not JSON ({exception_line(exc)})") from exc
        return item

    def classify_item(self, rng: np.random.Generator, positive: bool) -> Item:
        """A yes/no item whose true answer is `positive`."""
        return self._item("classify_item", lambda: self._tasks.classify_item(rng, positive))

    def generate_item(self, rng: np.random.Generator) -> Item:
        """Ask for a new instance under constraints drawn from rng."""
        return self._item("generate_item", lambda: self._tasks.generate_item(rng))

    def edit_item(self, rng: np.random.Generator, make_instance: bool) -> Item:
        """Ask to change a given example so it becomes an instance (or stops being one)."""
        return self._item("edit_item", lambda: self._tasks.edit_item(rng, make_instance))

    def render(self, item: Item, phrasing: int) -> str:
        """The prompt text of `item` in one phrasing."""
        return self._call("render", str, lambda: self._tasks.render(item, phrasing))

    def max_tokens(self, item: Item) -> int:
        """Enough answer tokens for the reply the prompt asks for."""
        return self._call("max_tokens", int, lambda: self._tasks.max_tokens(item))

    def grade(self, item: Item, reply: str) -> Graded:
        """The plugin's grade of a reply."""
        return self._call("grade", Graded, lambda: self._tasks.grade(item, reply))

    def reference(self, item: Item) -> str:
        """A reply the plugin's checker grades right."""
        return self._call("reference", str, lambda: self._tasks.reference(item))

    def _tests(self) -> InstanceTests | None:
        """The plugin's own instance test, or None."""
        has = self._call("instance test", bool,
                         lambda: isinstance(self._tasks, InstanceTests))
        return self._tasks if has else None  # type: ignore[return-value]

    @property
    def instance_request(self) -> str:
        """What a prompt asking for an instance appends ("" without an instance test)."""
        tests = self._tests()
        return "" if tests is None else self._call("instance_request", str,
                                                    lambda: tests.instance_request)

    @property
    def instance_tested(self) -> bool:
        """False when the concept has no claim-free instance test."""
        tests = self._tests()
        return tests is not None and self._call("instance_tested", bool,
                                                lambda: tests.instance_tested)

    def instance_check(self, text: str) -> InstanceCheck:
        """Whether `text` is an instance, or None with the reason."""
        if (tests := self._tests()) is None:
            return InstanceCheck(None, f"the plugin concept {self.key} has no claim-free "
                                       "instance test")
        return self._call("instance_check", InstanceCheck, lambda: tests.instance_check(text))
