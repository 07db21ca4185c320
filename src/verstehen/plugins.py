"""What every kind of plugin shares (methods, providers, concept domains): loading one entry
point so that nothing it does stops verstehen, the line that says one was left out (said once
per process, on stderr), and what is read from the installed plugins only when first used.

A plugin is loaded by the first question that needs it, never at import: `bounds` reads no
plugin, `concepts` reads the domains, `models` the providers. Whatever its import raises, a
`SystemExit` too, leaves it out in one line; only Ctrl-C (`KeyboardInterrupt`) goes through,
to stop the program as it would anywhere. `reset()` forgets what was loaded and said.
"""

from __future__ import annotations

import functools
import importlib.metadata
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Generic, TypeVar, overload

from verstehen.errors import UserError
from verstehen.text.terminal import terminal_line

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")
MESSAGE_CHARS = 300  # a plugin's message is cut there (it is one line among others)

_said: set[str] = set()  # the lines said on stderr in this process
_forget: list[Callable[[], None]] = []  # what reset() clears: each loader's kept value


class PluginError(UserError):
    """A plugin's code failed or gave what it may not (a task that raised, a wrong type): one
    line naming the plugin and what failed, exit 2."""


def message(exc: BaseException) -> str:
    """An exception's message, always a str that prints, however the exception came: its
    `__str__` may raise, return no str, or give lone surrogates (escaped as `\\udxxx`)."""
    try:
        text = str(exc)
    except KeyboardInterrupt:
        raise
    except BaseException as failed:  # a __str__ that raises, or returns no str
        text = f"(its message could not be read: {type(failed).__name__})"
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def exception_line(exc: BaseException) -> str:
    """"Type: first line of the message" of whatever a plugin raised (`message`), cut at
    MESSAGE_CHARS."""
    first = (message(exc).strip().splitlines() or [""])[0]
    if len(first) > MESSAGE_CHARS:
        first = first[:MESSAGE_CHARS] + "..."
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def load(point: importlib.metadata.EntryPoint, check: Callable[[object, str], T]) -> T:
    """The object `point` names, checked by `check(value, where)`; PluginError saying why when
    its import or the check fails in any way but Ctrl-C (a SystemExit too)."""
    try:
        return check(point.load(), point.value)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # whatever a third party's import or objects raise
        raise PluginError(exception_line(exc)) from None


def left_out(kind: str, point: importlib.metadata.EntryPoint, why: str) -> str:
    """The line saying a plugin was left out: what it is, its name, where it points, and why
    (the first line of the reason)."""
    first = why.strip().splitlines()[0] if why.strip() else "no reason given"
    return f"{kind} {point.name!r} ({point.value}) left out: {first}"


def warn_each(problems: Iterable[str]) -> None:
    """Say each line on stderr as a warning, once per process, its control characters escaped
    (it may quote a third party's message)."""
    for problem in problems:
        if problem not in _said:
            _said.add(problem)
            print(f"verstehen: warning: {terminal_line(problem)}", file=sys.stderr)


def is_printable(*texts: object) -> bool:
    """True when each text is a str a terminal shows as it is (no control character to
    escape): what a plugin's names and titles must be."""
    return all(isinstance(text, str) and terminal_line(text) == text for text in texts)


class Once(Generic[T]):
    """`read()` called at the first call only; what it gave is kept until `reset()` (a
    loader's plugins, and what is made from them)."""

    def __init__(self, read: Callable[[], T]) -> None:
        self._read = read
        self._kept: list[T] = []  # empty until read
        functools.update_wrapper(self, read)
        _forget.append(self._kept.clear)

    def __call__(self) -> T:
        if not self._kept:
            self._kept.append(self._read())
        return self._kept[0]

    def is_read(self) -> bool:
        """True once read (and not reset since)."""
        return bool(self._kept)

    def forget(self) -> None:
        """Forget what was read: the next call reads again."""
        self._kept.clear()


def once(read: Callable[[], T]) -> Once[T]:
    """`read` as a `Once`: called at the first use only (a decorator)."""
    return Once(read)


def on_reset(forget: Callable[[], None]) -> None:
    """Call `forget` at each `reset()` (a registry forgetting the entries it left out)."""
    _forget.append(forget)


def reset() -> None:
    """Forget the plugins loaded and the lines said: the next question reads the installed
    ones again (a test; a notebook after installing a package)."""
    _said.clear()
    for clear in _forget:
        clear()


class LazyMapping(Mapping[K, V]):
    """A mapping read from `read()` at each use (a `once` value), so that defining it at import
    loads no plugin."""

    def __init__(self, read: Callable[[], Mapping[K, V]]) -> None:
        self._read = read

    def __getitem__(self, key: K) -> V:
        return self._read()[key]

    def __contains__(self, key: object) -> bool:
        return key in self._read()

    def __iter__(self) -> Iterator[K]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())

    def __repr__(self) -> str:
        return repr(dict(self._read()))


class LazySequence(Sequence[T]):
    """A sequence read from `read()` at each use, as LazyMapping."""

    def __init__(self, read: Callable[[], Sequence[T]]) -> None:
        self._read = read

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[T]: ...

    def __getitem__(self, index: int | slice) -> T | Sequence[T]:
        return self._read()[index]

    def __iter__(self) -> Iterator[T]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())

    def __repr__(self) -> str:
        return repr(tuple(self._read()))


class LazySet(AbstractSet[T]):
    """A set read from `read()` at each use, as LazyMapping."""

    def __init__(self, read: Callable[[], AbstractSet[T]]) -> None:
        self._read = read

    def __contains__(self, value: object) -> bool:
        return value in self._read()

    def __iter__(self) -> Iterator[T]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())

    def __repr__(self) -> str:
        return repr(set(self._read()))
