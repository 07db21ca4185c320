"""What the commands that make a run folder share: the folder, the session, the ending."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from verstehen.cli.main import EXIT_CALL_FAILED, Parser, print_json, run_async, session_from
from verstehen.engine.store import RunStore, default_runs_dir


def run_flags(engine: argparse.ArgumentParser) -> Parser:
    """The engine flags plus what every run-making command takes: --max-tokens, --seed,
    --runs-dir, --no-progress, --json."""
    flags = Parser(add_help=False, parents=[engine])
    flags.add_argument("--max-tokens", type=int, default=None,
                       help="cap every reply's token budget (quick runs)")
    flags.add_argument("--seed", type=int, default=0)
    flags.add_argument("--runs-dir", type=Path, default=None,
                       help="parent of run folders (default $VERSTEHEN_RUNS_DIR or ./runs)")
    flags.add_argument("--no-progress", action="store_true")
    flags.add_argument("--json", action="store_true", help="print one JSON object")
    return flags


async def in_session(args: argparse.Namespace, label: str,
                     body: Callable[[Any], Awaitable[dict[str, Any]]]) -> dict[str, Any]:
    """Open a session, run `body(session)`, close; add wall seconds and usage to the summary."""
    session = session_from(args, label)
    started = time.monotonic()
    try:
        summary = await body(session)
    finally:
        await session.close()
    summary["seconds"] = round(time.monotonic() - started, 1)
    summary["usage"] = session.runner.usage_summary()
    return summary


def exit_code(summary: dict[str, Any]) -> int:
    """1 when calls failed (rerun to retry them: finished ones come from the cache), else 0."""
    if summary.get("failed_calls"):
        print(f"{summary['failed_calls']} calls failed; rerun the same command to retry them",
              file=sys.stderr)
        return EXIT_CALL_FAILED
    return 0


def create_store(args: argparse.Namespace, argv: list[str], command: str, config: dict[str, Any],
                 models: list[dict[str, str]]) -> RunStore:
    """A new run folder under --runs-dir, announced on stderr."""
    store = RunStore.create(args.runs_dir or default_runs_dir(), command=command,
                            argv=argv, config=config, seed=args.seed, models=models)
    print(f"run folder: {store.path}", file=sys.stderr)
    return store


def finish_run(args: argparse.Namespace, label: str, body: Any, show: Any) -> int:
    """Run `body` in a session, store the summary, print it (or JSON); exit 1 on failed calls."""
    summary: dict[str, Any] = {}

    async def go() -> int:
        summary.update(await in_session(args, label, body))
        return 0

    if (code := run_async(go())) != 0:
        return code
    RunStore(Path(summary["run"])).write_summary(summary)
    if args.json:
        print_json(summary)
    else:
        show(summary)
    return exit_code(summary)
