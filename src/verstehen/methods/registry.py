"""The methods `verstehen` knows: the built-in ones, those of installed packages, and those
registered in this process; the CLI, `verstehen runs`, `verstehen report` and `--resume` read
them here and name none themselves.

Each method declares itself in one `method.py` of its own folder (a `Method`, see
`verstehen.methods.contract`). A built-in one is one line of BUILT_IN below; a package adds one
with an entry point of group `verstehen.methods` naming its `Method`, e.g. in its pyproject.toml:

    [project.entry-points."verstehen.methods"]
    echo = "echo_method.method:METHOD"

and code (a test, a notebook) may call `register(METHOD)`.

The built-in declarations are loaded when first asked for, not when this module is imported: a
method's commands write their report through the viewer, which reads this registry, so the
viewer, the CLI's resume and this module import no method (no import cycle). The installed
plugins are loaded only by a question the built-in and registered methods cannot answer (every
method, every run kind, a run kind none of them makes), once per process;
one that does not load (whatever its import raises but Ctrl-C), names no `Method`, or whose
name or run kind is taken is left out, said in one line on stderr (`plugin_problems()` keeps
them), never a crash. `METHODS.reset()` (or `verstehen.plugins.reset()`) reads them again;
`METHODS` is the generic `verstehen.registries.Registry` that providers and domains use too.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any

from verstehen.methods.contract import Method, RunKind
from verstehen.methods.options import api_functions
from verstehen.plugins import is_printable
from verstehen.registries import Registry

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


def methods(installed: bool = True) -> tuple[Method, ...]:
    """Every method: the built-in ones, then the installed plugins' (loaded at the first call
    that asks for them; `installed=False` reads none), then the registered ones; a plugin left
    out since (`leave_out`) is not among them."""
    return METHODS.entries(installed)


def register(method: Method) -> None:
    """Add a method for this process (a package uses an entry point instead); ValueError when
    its name or one of its commands is taken."""
    METHODS.register(method)


def unregister(method: Method) -> None:
    """Take back a method `register` added (nothing happens when it was not registered)."""
    METHODS.unregister(method)


def is_built_in(method: Method) -> bool:
    """True for a method of BUILT_IN (its failures are bugs, not a plugin's to leave out)."""
    return METHODS.is_built_in(method)


def plugin_problems() -> tuple[str, ...]:
    """One line for each installed plugin that was left out, and why (reads them)."""
    return METHODS.problems()


def leave_out(method: Method, why: str) -> None:
    """Take a method that is not built in out of this process, saying `why` in one line on
    stderr (the CLI could not add its commands); ValueError for a built-in one."""
    METHODS.leave_out(method, why)


def run_kinds() -> tuple[RunKind[Any], ...]:
    """Every kind of run folder the methods make (the installed plugins' too)."""
    return tuple(kind for method in methods() for kind in method.kinds)


def run_kind(command: object) -> RunKind[Any] | None:
    """The kind of run folder run.json's `command` names, or None when no method makes it (the
    installed plugins are read only when no built-in or registered method makes it)."""
    for installed in (False, True):
        kinds = (kind for method in methods(installed) for kind in method.kinds)
        if (found := next((kind for kind in kinds if kind.kind == command), None)) is not None:
            return found
    return None


def declared_api(name: str) -> object | None:
    """The API function a run kind declares, by its command words joined by "_" (`echo`,
    `potemkin_run`; its `_async` twin with that suffix), or its result type by class name;
    None when no method declares it. `verstehen.api` names the built-in ones for IDEs and type
    checkers; this finds any method's, an installed or registered one's too."""
    for kind in run_kinds():
        base = "_".join(kind.words)
        if name == base and kind.api is not None:
            return kind.api
        if name == f"{base}_async" and kind.options is not None and kind.entry is not None:
            return _async_twin(kind)
        if name == kind.result.__name__:
            return kind.result
    return None


_twins: dict[str, Callable[..., object]] = {}


def _async_twin(kind: RunKind[Any]) -> Callable[..., object]:
    """The `_async` API function of a run kind, made once from its options and entry."""
    if kind.kind not in _twins:
        assert kind.options is not None and kind.entry is not None
        _twins[kind.kind] = api_functions(kind.options, kind.entry,
                                          "_".join(kind.words))[0]
    return _twins[kind.kind]


def example_run(kind: RunKind[Any], runs_dir: Path, cache: Path, tag: str = "") -> Path | None:
    """One small finished run folder of `kind` under runs_dir, made with scripted models by the
    function its `example` names (every model's name ending with `tag`); None when it names
    none."""
    if kind.example is None:
        return None
    module, _, name = kind.example.partition(":")
    return Path(getattr(importlib.import_module(module), name)(runs_dir, cache, tag))


class ResumableCommands(AbstractSet[tuple[str, ...]]):
    """The command words whose run folders `--resume` goes on with. Asking whether words are
    among them reads no plugin: a plugin's command runs only once the CLI's parser read the
    installed plugins, whose commands count from then on."""

    def __contains__(self, words: object) -> bool:
        return any(words == kind.words and kind.resumable
                   for method in methods(installed=METHODS.is_read())
                   for kind in method.kinds)

    def __iter__(self) -> Iterator[tuple[str, ...]]:
        return iter({kind.words for kind in run_kinds() if kind.resumable})

    def __len__(self) -> int:
        return len({kind.words for kind in run_kinds() if kind.resumable})


def resumable_commands() -> AbstractSet[tuple[str, ...]]:
    """The command words whose run folders `--resume` goes on with."""
    return ResumableCommands()


def _method(value: object, where: str) -> Method:
    """`value` when it is a well-formed Method; TypeError or ValueError naming where it came
    from and what is wrong otherwise."""
    if not isinstance(value, Method):
        raise TypeError(f"{where} is a {type(value).__name__}, not a "
                        "verstehen.methods.contract.Method")
    if not is_printable(value.name):
        raise ValueError(f"method name {value.name!r} is not printable text")
    if not isinstance(value.help_place, int):
        raise TypeError(f"method {value.name!r}: help_place is not a whole number")
    for kind in value.kinds:
        if not isinstance(kind, RunKind) or not is_printable(*kind.words):
            raise TypeError(f"method {value.name!r} lists a {type(kind).__name__} that is not "
                            "a RunKind of printable command words")
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


METHODS: Registry[Method] = Registry("plugin", GROUP, check=_method, name=lambda m: m.name,
                                     clash=_clash, built_in=BUILT_IN)
