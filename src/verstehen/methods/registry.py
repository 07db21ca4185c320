"""The methods `verstehen` knows: the built-in ones, those of installed packages, and those
registered in this process; the CLI, `verstehen runs`, `verstehen report` and `--resume` read
them here and name none themselves.

Each method declares itself in one `method.py` of its own folder (a `Method`, see
`verstehen.methods.contract`). A built-in one is one line of BUILT_IN below; a package adds one
with an entry point of group `verstehen.methods` naming its `Method`, e.g. in its pyproject.toml:

    [project.entry-points."verstehen.methods"]
    echo = "echo_method.method:METHOD"

and code (a test, a notebook) may call `register(METHOD)`. A plugin that does not load is left
out, said in one line (`plugin_problems()`, which the CLI prints), never a crash.

Declarations are loaded when first asked for, not when this module is imported: a method's
commands write their report through the viewer, which reads this registry, so the viewer, the
CLI's resume and this module import no method (no import cycle), and the registry loads them
all, once, at the first question.
"""

from __future__ import annotations

import functools
import importlib.metadata
from collections.abc import Iterable
from typing import Any

from verstehen.methods.contract import Method, RunKind
from verstehen.plugins import left_out

GROUP = "verstehen.methods"
# the built-in methods, one line each: the module and name of its declaration, as an entry
# point names it (and loaded the same way)
BUILT_IN = (
    "verstehen.auditing.method:METHOD",
    "verstehen.methods.certification.method:METHOD",
    "verstehen.methods.potemkin.method:METHOD",
    "verstehen.methods.imagination.method:METHOD",
    "verstehen.methods.consistency.method:METHOD",
)
_registered: list[Method] = []


def register(method: Method) -> None:
    """Add a method for this process (a package uses an entry point instead); ValueError when
    its name or one of its commands is taken."""
    if problem := _clash(method, methods()):
        raise ValueError(problem)
    _registered.append(method)


def unregister(method: Method) -> None:
    """Take back a method `register` added (nothing happens when it was not registered)."""
    if method in _registered:
        _registered.remove(method)


def methods() -> tuple[Method, ...]:
    """Every method: the built-in ones, then the installed plugins', then the registered ones."""
    built_in, installed, _ = _loaded()
    return (*built_in, *installed, *_registered)


def run_kinds() -> tuple[RunKind[Any], ...]:
    """Every kind of run folder the methods make."""
    return tuple(kind for method in methods() for kind in method.kinds)


def run_kind(command: object) -> RunKind[Any] | None:
    """The kind of run folder run.json's `command` names, or None when no method makes it."""
    return next((kind for kind in run_kinds() if kind.kind == command), None)


def resumable_commands() -> frozenset[tuple[str, ...]]:
    """The command words whose run folders `--resume` goes on with."""
    return frozenset(kind.words for kind in run_kinds() if kind.resumable)


def is_built_in(method: Method) -> bool:
    """True for a method of BUILT_IN (its failures are bugs, not a plugin's to leave out)."""
    return any(method is known for known in _loaded()[0])


def plugin_problems() -> tuple[str, ...]:
    """One line for each installed plugin that was left out, and why."""
    return _loaded()[2]


@functools.cache
def _loaded() -> tuple[tuple[Method, ...], tuple[Method, ...], tuple[str, ...]]:
    """(built-in methods, installed plugins' methods, a line for each plugin left out)."""
    built_in: list[Method] = []
    for value in BUILT_IN:  # a built-in one that fails to load is a bug: it raises
        built_in.append(_method(importlib.metadata.EntryPoint(
            name=value.split(":")[0], value=value, group=GROUP).load(), value))
    installed: list[Method] = []
    problems: list[str] = []
    for point in _entry_points():
        try:
            method = _method(point.load(), point.value)
        except Exception as exc:  # whatever a third party's import raises
            problems.append(left_out("plugin", point, f"{type(exc).__name__}: {exc}"))
            continue
        if problem := _clash(method, [*built_in, *installed]):
            problems.append(left_out("plugin", point, problem))
            continue
        installed.append(method)
    return tuple(built_in), tuple(installed), tuple(problems)


def _entry_points() -> Iterable[importlib.metadata.EntryPoint]:
    """The installed packages' entry points of the group."""
    return importlib.metadata.entry_points(group=GROUP)


def _method(value: object, where: str) -> Method:
    """`value` when it is a Method; TypeError naming where it came from otherwise."""
    if not isinstance(value, Method):
        raise TypeError(f"{where} is a {type(value).__name__}, not a "
                        "verstehen.methods.contract.Method")
    return value


def _clash(method: Method, known: Iterable[Method]) -> str | None:
    """Why `method` cannot join the known ones (a name or a command taken), or None."""
    for other in known:
        if other.name == method.name:
            return f"a method named {method.name!r} is known already"
        taken = {k.kind for k in other.kinds} & {k.kind for k in method.kinds}
        if taken:
            return (f"method {method.name!r} makes {min(taken)!r} run folders, as method "
                    f"{other.name!r} does")
    return None
