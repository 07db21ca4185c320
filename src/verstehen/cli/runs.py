"""How a run-making command ends: the result printed (words or JSON) and the exit code."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TypeVar

from verstehen.cli.flags import print_json
from verstehen.engine.store import RunStore
from verstehen.methods.contract import RunResult
from verstehen.results import EXIT_CALL_FAILED as EXIT_CALL_FAILED
from verstehen.text.tables import plural

R = TypeVar("R", bound=RunResult)


def finish(args: argparse.Namespace, result: R, show: Callable[[R], None]) -> int:
    """Print the result (in words, or as JSON with --json); exit 1 when calls failed."""
    if getattr(args, "json", False):
        print_json(result.to_dict())
    else:
        show(result)
    if result.failed_calls:
        again = RunStore.existing(result.run_dir).resume_command()
        print(f"{plural(result.failed_calls, 'call')} failed; to retry them, type: {again}",
              file=sys.stderr)
        return EXIT_CALL_FAILED
    return 0
