"""What every kind of plugin shares (methods, providers, concept domains): the line that says
one was left out, and that line said on stderr. Each loader reads its own entry-point group
and checks what it loads; none lets a plugin that fails stop verstehen."""

from __future__ import annotations

import importlib.metadata
import sys
from collections.abc import Iterable

from verstehen.text.terminal import terminal_line


def left_out(kind: str, point: importlib.metadata.EntryPoint, why: str) -> str:
    """The line saying a plugin was left out: what it is, its name, where it points, and why
    (the first line of the reason)."""
    first = why.strip().splitlines()[0] if why.strip() else "no reason given"
    return f"{kind} {point.name!r} ({point.value}) left out: {first}"


def warn_each(problems: Iterable[str]) -> None:
    """Say each line on stderr as a warning, its control characters escaped (it may quote a
    third party's message)."""
    for problem in problems:
        print(f"verstehen: warning: {terminal_line(problem)}", file=sys.stderr)
