"""TEMPORARY: the dict-summary run helpers the methods not yet on typed entry points use.

Deleted once potemkin, imagination and consistency return typed results (redesign step).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from verstehen.cli.flags import print_json, settings_from
from verstehen.cli.runs import EXIT_CALL_FAILED
from verstehen.engine.session import Session
from verstehen.engine.store import RunStore
from verstehen.results import to_jsonable


def create_store(args: argparse.Namespace, argv: list[str], command: str,
                 config: dict[str, Any], models: list[dict[str, str]]) -> RunStore:
    """A new run folder under --runs-dir, announced on stderr."""
    return settings_from(args).create_run(command, config, args.seed, models)


def finish_run(args: argparse.Namespace, label: str,
               body: Callable[[Any], Awaitable[dict[str, Any]]], show: Any) -> int:
    """Run `body` in a session, store the summary, print it (or JSON); exit 1 on failed calls."""
    settings = settings_from(args)

    async def go() -> dict[str, Any]:
        session = Session.start(settings, label)
        started = time.monotonic()
        try:
            summary = await body(session)
        finally:
            await session.close()
        summary["seconds"] = round(time.monotonic() - started, 1)
        summary["usage"] = to_jsonable(dict(sorted(session.runner.usage.items())))
        return summary

    summary = asyncio.run(go())
    RunStore(Path(summary["run"])).write_summary(summary)
    if args.json:
        print_json(summary)
    else:
        show(summary)
    if summary.get("failed_calls"):
        print(f"{summary['failed_calls']} calls failed; rerun the same command to retry them",
              file=sys.stderr)
        return EXIT_CALL_FAILED
    return 0
