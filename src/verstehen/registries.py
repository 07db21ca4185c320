"""One registry for every kind of plugin (methods, providers, concept domains): the built-in
entries, named as entry points name them (`module:object`, loaded at the first question), the
installed packages' entry points of the kind's group (loaded only when a question needs them),
and those registered in this process.

An installed entry that does not load (whatever its import raises but Ctrl-C), is not of the
kind, or clashes with one known already is left out, said in one line on stderr once per
process and kept for `verstehen plugins`; a built-in entry that fails is a bug and raises.
`reset()` (this registry's) or `verstehen.plugins.reset()` (every registry's) reads them again.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from verstehen.plugins import Once, PluginError, left_out, load, on_reset, warn_each

T = TypeVar("T")
# why an entry cannot join those known before it (a name taken), or None
Clash = Callable[[T, Sequence[T]], "str | None"]


@dataclass(frozen=True)
class Loaded(Generic[T]):
    """The installed entries that loaded, each with its entry point's `name = value`, and a
    line for each one left out."""

    entries: tuple[T, ...] = ()
    sources: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()


class Registry(Generic[T]):
    """The entries of one kind of plugin: `kind` names it in lines ("method plugin"), `group`
    is its entry-point group, `check(value, where)` returns a well-formed entry or raises,
    `name` names an entry, `clash` says why an entry cannot join those known before it."""

    def __init__(self, kind: str, group: str, *, check: Callable[[object, str], T],
                 name: Callable[[T], str], clash: Clash[T] | None = None,
                 built_in: Sequence[str] = ()) -> None:
        self.kind, self.group, self.built_in_names = kind, group, tuple(built_in)
        self._check, self._name = check, name
        self._clash: Clash[T] = clash or (lambda entry, known: None)
        self._registered: list[T] = []
        self._refused: list[tuple[T, str]] = []
        self._built_in = Once(self._load_built_in)
        self._installed = Once(self._load_installed)
        on_reset(self._refused.clear)
        ALL.append(self)

    def name(self, entry: T) -> str:
        """The entry's name."""
        return self._name(entry)

    def built_in(self) -> tuple[T, ...]:
        """The built-in entries, loaded at the first call."""
        return self._built_in()

    def installed(self) -> Loaded[T]:
        """The installed packages' entries, loaded at the first call, and the lines of those
        left out (said on stderr then)."""
        return self._installed()

    def is_read(self) -> bool:
        """True once the installed entries were loaded (and not reset since)."""
        return self._installed.is_read()

    def entries(self, installed: bool = True) -> tuple[T, ...]:
        """The built-in entries, the installed ones (unless `installed` is False: none read),
        then the registered ones; one left out since (`leave_out`) is not among them."""
        plugins = self.installed().entries if installed else ()
        return tuple(entry for entry in (*self.built_in(), *plugins, *self._registered)
                     if not any(entry is gone for gone, _ in self._refused))

    def is_built_in(self, entry: T) -> bool:
        """True for a built-in entry (its failures are bugs, not a plugin's to leave out)."""
        return any(entry is known for known in self.built_in())

    def source(self, entry: T) -> str:
        """Where an entry comes from: "built in", its entry point, or "registered"."""
        if self.is_built_in(entry):
            return "built in"
        loaded = self.installed() if self.is_read() else Loaded[T]()
        for known, where in zip(loaded.entries, loaded.sources, strict=True):
            if known is entry:
                return where
        return "registered"

    def register(self, entry: T) -> None:
        """Add an entry for this process (a package uses an entry point instead); ValueError
        when it clashes with one known."""
        if problem := self._clash(entry, self.entries()):
            raise ValueError(problem)
        self._registered.append(entry)

    def unregister(self, entry: T) -> None:
        """Take back an entry `register` added (nothing happens when it was not)."""
        if entry in self._registered:
            self._registered.remove(entry)

    def leave_out(self, entry: T, why: str) -> None:
        """Take an entry that is not built in out of this process, saying `why` in one line on
        stderr; ValueError for a built-in one."""
        if self.is_built_in(entry):
            raise ValueError(f"the built-in {self.kind} {self.name(entry)!r} cannot be left out")
        self._refused.append((entry, why))
        warn_each([why])

    def problems(self) -> tuple[str, ...]:
        """One line for each installed entry left out, and why (reads them)."""
        return (*self.installed().problems, *(why for _, why in self._refused))

    def reset(self) -> None:
        """Forget the installed entries and those left out: the next question reads them
        again (a test; a notebook after installing a package)."""
        self._installed.forget()
        self._refused.clear()

    def _load_built_in(self) -> tuple[T, ...]:
        return tuple(self._check(importlib.metadata.EntryPoint(
            name=value.split(":")[0], value=value, group=self.group).load(), value)
            for value in self.built_in_names)

    def _load_installed(self) -> Loaded[T]:
        entries: list[T] = []
        sources: list[str] = []
        problems: list[str] = []
        for point in self.entry_points():
            try:
                entry = load(point, self._check)
            except PluginError as exc:
                problems.append(left_out(self.kind, point, str(exc)))
                continue
            if problem := self._clash(entry, [*self.built_in(), *entries]):
                problems.append(left_out(self.kind, point, problem))
                continue
            entries.append(entry)
            sources.append(f"{point.name} = {point.value}")
        warn_each(problems)
        return Loaded(tuple(entries), tuple(sources), tuple(problems))

    def entry_points(self) -> Iterable[importlib.metadata.EntryPoint]:
        """The installed packages' entry points of the group."""
        return importlib.metadata.entry_points(group=self.group)


ALL: list[Registry[Any]] = []  # every registry made, for `verstehen plugins` and reset


def reset_all() -> None:
    """Reset every registry."""
    for registry in ALL:
        registry.reset()
