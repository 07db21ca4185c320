"""How a message names a parameter: the statistics and the procedures speak in parameter names
(`questions`), and the face that runs them words each for its users (`questions=59` in Python,
`--questions 59` on the command line).

A message that advises a value writes `setting("questions", 59)`; the command line runs each
command inside `flags_named(...)`, so every message formed while it runs names the flag the
user types, and Python callers of the same process are not affected.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Face:
    """How parameters are named: as Python keywords, or as the command line's flags
    (`flags` maps a parameter to its flag where it is not `--name-with-dashes`)."""

    command_line: bool = False
    flags: Mapping[str, str] = field(default_factory=dict)

    def name(self, parameter: str) -> str:
        """The parameter as this face's users type it."""
        if not self.command_line:
            return parameter
        return self.flags.get(parameter, "--" + parameter.replace("_", "-"))

    def setting(self, parameter: str, value: object = None) -> str:
        """The parameter given a value ("questions=59", "--questions 59"; a switch on,
        "--sequential"); its name alone when `value` is None."""
        if value is None:
            return self.name(parameter)
        if not self.command_line:
            return f"{parameter}={value:_}" if _is_int(value) else f"{parameter}={value!r}"
        if value is True:  # a switch
            return self.name(parameter)
        shown = f"{value:,}" if _is_int(value) else (
            f"{value:g}" if isinstance(value, float) else str(value))
        return f"{self.name(parameter)} {shown}"


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


PYTHON = Face()
_face: ContextVar[Face] = ContextVar("verstehen_face", default=PYTHON)


@contextmanager
def flags_named(flags: Mapping[str, str] | None = None) -> Iterator[None]:
    """Word parameters as command-line flags while the block runs (`flags`: those not named
    `--name-with-dashes`)."""
    token = _face.set(Face(command_line=True, flags=dict(flags or {})))
    try:
        yield
    finally:
        _face.reset(token)


def setting(parameter: str, value: object = None) -> str:
    """The parameter (with a value) as the face running now names it."""
    return _face.get().setting(parameter, value)


def parameter(name: str) -> str:
    """The parameter's name as the face running now spells it."""
    return _face.get().name(name)
