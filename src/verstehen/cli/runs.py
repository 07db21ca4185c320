"""How a run-making command ends: the result printed (words or JSON) and the exit code."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Protocol, TypeVar

from verstehen.cli.flags import print_json
from verstehen.engine.store import RunStore
from verstehen.report.tables import plural

EXIT_CALL_FAILED = 1


class RunResult(Protocol):
    """What every run-making entry point returns: a typed result with a JSON form."""

    @property
    def failed_calls(self) -> int:
        """Calls that failed after every retry (a rerun tries them again)."""
        ...

    def to_dict(self) -> dict:
        """The JSON form, as in summary.json."""
        ...


R = TypeVar("R", bound=RunResult)


def finish(args: argparse.Namespace, result: R, show: Callable[[R], None]) -> int:
    """Print the result (in words, or as JSON with --json); exit 1 when calls failed."""
    if getattr(args, "json", False):
        print_json(result.to_dict())
    else:
        show(result)
    if result.failed_calls:
        run_dir = getattr(result, "run_dir", None)
        again = (RunStore.existing(run_dir).resume_command() if run_dir is not None
                 else "rerun the same command")
        print(f"{plural(result.failed_calls, 'call')} failed; to retry them, type: {again}",
              file=sys.stderr)
        return EXIT_CALL_FAILED
    return 0
