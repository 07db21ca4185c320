"""The CLI's commands: each takes parsed flags, runs a procedure, prints, returns an exit code."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from verstehen.cli.main import EXIT_CALL_FAILED, print_json, run_async, session_from
from verstehen.engine.cache import Cache
from verstehen.engine.store import RunStore, default_runs_dir
from verstehen.errors import UserError
from verstehen.models import DEFAULT_MODEL, PROVIDERS
from verstehen.models.base import GenerateParams, Message


def params_from(args: argparse.Namespace) -> GenerateParams:
    """Generation parameters from the flags, checked."""
    if args.temperature < 0:
        raise UserError(f"--temperature must be >= 0, not {args.temperature}")
    if args.max_tokens < 1:
        raise UserError(f"--max-tokens must be at least 1, not {args.max_tokens}")
    return GenerateParams(args.temperature, args.max_tokens, args.seed)


def cmd_models(args: argparse.Namespace, argv: list[str]) -> int:
    """List providers, their keys and capabilities, and the embedded default."""
    from verstehen.models.local import EMBEDDED, embedded_path

    print("provider   key variable        capabilities")
    for info in PROVIDERS.values():
        key = info.key_variable or "(none)"
        state = "" if not info.key_variable else (
            " [set]" if os.environ.get(info.key_variable) else " [not set]")
        print(f"{info.name:<10} {key + state:<19} {info.capabilities}")
        print(f"{'':<10} e.g. {info.example}")
    print(f"\nembedded default: {DEFAULT_MODEL}")
    for name in EMBEDDED:
        try:
            path = embedded_path(name)
            where = f"{path} ({path.stat().st_size / 1e6:.0f} MB)" if path.exists() else "missing"
        except UserError as exc:
            where = str(exc)
        print(f"  local/{name}: {where}")
    return 0


def cmd_ask(args: argparse.Namespace, argv: list[str]) -> int:
    """Print one answer; say on stderr whether it came from the cache."""
    params = params_from(args)
    messages: list[Message] = []
    if args.system:
        messages.append({"role": "system", "content": args.system})
    messages.append({"role": "user", "content": args.prompt})

    async def ask() -> int:
        session = session_from(args)
        try:
            model = session.open_model(args.model, base_url=args.base_url)
            started = time.monotonic()
            result = await session.runner.generate(model, messages, params,
                                                   sample_index=args.sample)
        finally:
            await session.close()
        if not result.ok:
            print(f"verstehen: error: {args.model} failed: {result.error}", file=sys.stderr)
            return EXIT_CALL_FAILED
        print(result.value.text)
        usage = result.value.usage
        how = "answered from the cache" if result.cached else (
            f"new call, {time.monotonic() - started:.2f} s")
        print(f"[{how}; {usage.prompt_tokens} prompt + {usage.completion_tokens} "
              f"completion tokens; cache {session.runner.cache.path}]", file=sys.stderr)
        return 0

    return run_async(ask())


def cmd_batch(args: argparse.Namespace, argv: list[str]) -> int:
    """Answer a prompts file into a run folder, or finish one with --resume."""
    from verstehen.cli.batch import load_prompts, run_batch

    if args.resume is not None:
        store = RunStore.open(args.resume)
        config = store.info()["config"]
        for name in ("model", "prompts", "samples", "temperature", "max_tokens", "seed",
                     "base_url"):
            setattr(args, name, config[name])
    elif args.model is None or args.prompts is None:
        raise UserError("batch needs MODEL and PROMPTS, or --resume RUN_FOLDER")
    params = params_from(args)
    if args.samples < 1:
        raise UserError(f"--samples must be at least 1, not {args.samples}")
    items = load_prompts(Path(args.prompts))

    async def batch() -> int:
        session = session_from(args, f"batch {args.model}")
        try:
            model = session.open_model(args.model, base_url=args.base_url)
            run = store if args.resume is not None else RunStore.create(
                args.runs_dir or default_runs_dir(), command="batch", argv=argv,
                config={"model": args.model, "prompts": str(Path(args.prompts).resolve()),
                        "samples": args.samples, "temperature": params.temperature,
                        "max_tokens": params.max_tokens, "seed": params.seed,
                        "base_url": args.base_url},
                seed=params.seed, models=[model.identity()])
            print(f"run folder: {run.path}", file=sys.stderr)
            summary = await run_batch(session.runner, model, items, run, params, args.samples)
        finally:
            await session.close()
        print_json({"run": str(run.path), **summary})
        return EXIT_CALL_FAILED if summary["errors"] else 0

    return run_async(batch())


def cmd_cache(args: argparse.Namespace, argv: list[str]) -> int:
    """Show or clear the cache."""
    cache = Cache(args.cache)
    try:
        if args.action == "clear":
            deleted = cache.clear(args.model)
            print(f"deleted {deleted} entries from {cache.path}")
            return 0
        stats = cache.stats()
    finally:
        cache.close()
    if args.json:
        print_json(stats)
        return 0
    print(f"{stats['path']}: {stats['entries']} entries, {stats['bytes'] / 1e6:.1f} MB")
    for row in stats["by_model"]:
        print(f"  {row['model']:<40} {row['kind']:<9} {row['entries']}")
    return 0
