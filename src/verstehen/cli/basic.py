"""The commands that are not a method: `models`, `ask` and `cache`."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

from verstehen.cli.flags import (
    BaseUrls,
    Parser,
    base_urls,
    generation_flags,
    model_name,
    nonnegative_int,
    print_json,
    variable_name,
)
from verstehen.cli.parser import Subcommands
from verstehen.cli.runs import EXIT_CALL_FAILED
from verstehen.engine.cache import Cache, cache_file
from verstehen.engine.session import RunSettings, Session
from verstehen.errors import UserError
from verstehen.models import DEFAULT_MODEL, PROVIDERS, known_providers
from verstehen.models.base import GenerateParams, Message
from verstehen.models.embedded import DEFAULT_SEQUENCES, EMBEDDED, embedded_path
from verstehen.models.endpoints import describe_endpoint, endpoint_list, pool_identity
from verstehen.models.threads import ThreadPolicy
from verstehen.text.tables import plural
from verstehen.text.terminal import terminal_line, terminal_text
from verstehen.textfiles import surrogate_problem


def add_parsers(commands: Subcommands, engine: Parser) -> None:
    """Add `models`, `ask` and `cache`."""
    models = commands.add_parser("models",
                                 help="providers, the embedded default model, capabilities; "
                                      "with --base-url, what each endpoint serves")
    models.add_argument("--base-url", type=base_urls, action=BaseUrls, default=None,
                        metavar="URL", help="an endpoint to ask (repeat it, or @FILE)")
    models.add_argument("--api-key-env", type=variable_name, default=None, metavar="NAME",
                        help="environment variable holding the endpoints' key")
    models.set_defaults(func=cmd_models)

    ask = commands.add_parser("ask", parents=[engine, generation_flags()],
                              help="one answer from a model, through the cache")
    ask.add_argument("model", type=model_name, help=f"provider/model, e.g. {DEFAULT_MODEL}")
    ask.add_argument("prompt")
    ask.add_argument("--system", default=None, help="a system message")
    ask.add_argument("--sample", type=nonnegative_int, default=0,
                     help="sample index at temperature > 0: a new index draws a new answer")
    ask.set_defaults(func=cmd_ask)

    cache = commands.add_parser("cache", help="inspect or clear the call cache")
    cache.add_argument("action", choices=["stats", "clear"])
    cache.add_argument("--cache", type=Path, default=None,
                       help="cache file (default $VERSTEHEN_CACHE or "
                            "~/.cache/verstehen/calls.sqlite)")
    cache.add_argument("--model", default=None, help="clear only this model's entries")
    cache.add_argument("--json", action="store_true", help="print one JSON object")
    cache.add_argument("--yes", action="store_true",
                       help="clear without asking (needed where there is no terminal to ask on)")
    cache.set_defaults(func=cmd_cache)


def params_from(args: argparse.Namespace) -> GenerateParams:
    """Generation parameters from the generation flags."""
    return GenerateParams(args.temperature, args.max_tokens, args.seed)


def cmd_models(args: argparse.Namespace) -> int:
    """List providers (the built-in ones, then installed plugins'), their keys and
    capabilities, the embedded default and its threads."""
    threads = ThreadPolicy()  # a bad $VERSTEHEN_THREADS stops here, before any output
    rows = [(info.name, (info.key_variable or "(none)") + (
        "" if not info.key_variable else
        " [set]" if os.environ.get(info.key_variable) else " [not set]"), info)
        for info in known_providers().values()]
    name_width = max(len("provider"), *(len(name) for name, _, _ in rows))
    key_width = max(len("key variable"), *(len(key) for _, key, _ in rows))
    print(f"{'provider':<{name_width}}  {'key variable':<{key_width}}  capabilities")
    for name, key, info in rows:
        print(f"{name:<{name_width}}  {key:<{key_width}}  {info.capabilities}")
        plugin = "" if name in PROVIDERS else "an installed plugin; "
        print(f"{'':<{name_width}}  {plugin}e.g. {info.example}")
    print(f"\nembedded default: {DEFAULT_MODEL}")
    for name in EMBEDDED:
        try:
            path = embedded_path(name)
            where = f"{path} ({path.stat().st_size / 1e6:.0f} MB)" if path.exists() else "missing"
        except UserError as exc:
            where = str(exc)
        print(f"  local/{name}: {where}")
    time.sleep(0.3)  # a short look at what other processes use
    threads.choose()
    print(f"  threads: {threads.describe()}")
    print(f"  replies decoded together: {DEFAULT_SEQUENCES} (--max-connections N; `ask` makes "
          "one from the file as shipped)")
    if args.base_url is not None:
        show_endpoints(endpoint_list(args.base_url), args.api_key_env)
    return 0


def show_endpoints(urls: tuple[str, ...], key_variable: str | None) -> None:
    """What each endpoint serves, and the cache identity they make together."""
    key = (os.environ.get(key_variable, "").strip() or None) if key_variable else None
    infos = [describe_endpoint(url, key) for url in urls]
    what = "one endpoint" if len(urls) == 1 else f"{len(urls)} replicas of one openai/ model"
    print(f"\nendpoints: {what}; cache key base_url: {pool_identity(urls)}")
    for info in infos:
        said = f"{info.kind:<9} serves {', '.join(info.models) or '(nothing listed)'}"
        print(f"  {info.url:<40} {said if not info.error else 'not answering: ' + info.error}")
    served = {info.models for info in infos if not info.error}
    if len(served) > 1:
        print("  warning: the endpoints serve different models; replicas listed together must "
              "serve the same weights")


def cmd_ask(args: argparse.Namespace) -> int:
    """Print one answer (its control characters escaped); say on stderr whether it came from
    the cache."""
    for name, text in (("PROMPT", args.prompt), ("--system", args.system or "")):
        if problem := surrogate_problem(text, escaped_bytes=True):
            raise UserError(f"argument {name} is not UTF-8 text: {problem}; pass it in UTF-8 "
                            "(a UTF-8 locale, or a file converted with iconv)")
    params = params_from(args)
    messages: list[Message] = []
    if args.system:
        messages.append({"role": "system", "content": args.system})
    messages.append({"role": "user", "content": args.prompt})
    settings = RunSettings(cache=args.cache, max_connections=args.max_connections,
                           max_attempts=args.max_attempts, threads=args.threads,
                           timeout=args.timeout, api_key_env=args.api_key_env,
                           reasoning_budget=args.reasoning_budget)

    async def ask() -> int:
        # one reply: a local model makes it from its file as shipped, the fastest way for one
        session = Session.start(settings, batched=False)
        try:
            model = session.open_model(args.model, base_url=args.base_url)
            started = time.monotonic()
            result = await session.runner.generate(model, messages, params,
                                                   sample_index=args.sample)
        finally:
            await session.close()
        if not result.ok:
            print(terminal_line(f"verstehen: error: {args.model} failed: {result.error}"),
                  file=sys.stderr)
            return EXIT_CALL_FAILED
        print(terminal_text(result.value.text))
        usage = result.value.usage
        how = "answered from the cache" if result.cached else (
            f"new call, {time.monotonic() - started:.2f} s")
        thought = f" ({usage.reasoning_tokens} reasoning)" if usage.reasoning_tokens else ""
        print(f"[{how}; {usage.prompt_tokens} prompt + {usage.completion_tokens} "
              f"completion tokens{thought}; cache {session.runner.cache.path}]",
              file=sys.stderr)
        return 0

    return asyncio.run(ask())


def cmd_cache(args: argparse.Namespace) -> int:
    """Show or clear the cache; neither creates a cache that is not there, and clearing asks
    first (on a terminal) unless --yes."""
    path = cache_file(args.cache)
    if not path.exists():
        if args.action == "clear":
            print(f"nothing to clear: there is no cache at {path}")
        elif args.json:
            print_json({"path": str(path), "bytes": 0, "entries": 0, "by_model": []})
        else:
            print(f"{path}: no cache yet (0 entries)")
        return 0
    cache = Cache(path)
    try:
        if args.action == "clear":
            return clear_cache(cache, args.model, args.yes)
        stats = cache.stats()
    finally:
        cache.close()
    if args.json:
        print_json(stats)
        return 0
    print(f"{stats['path']}: {plural(stats['entries'], 'entry', 'entries')}, "
          f"{stats['bytes'] / 1e6:.1f} MB")
    for row in stats["by_model"]:
        print(f"  {row['model']:<40} {row['kind']:<9} {row['entries']}")
    return 0


def clear_cache(cache: Cache, model: str | None, confirmed: bool) -> int:
    """Delete the entries (of one model), after a yes on the terminal unless `confirmed`."""
    stats = cache.stats()
    count = stats["entries"] if model is None else sum(
        row["entries"] for row in stats["by_model"] if row["model"] == model)
    what = plural(count, "entry", "entries") + (f" of {model}" if model else "")
    if count and not confirmed:
        if not sys.stdin.isatty():
            raise UserError(f"cache clear would delete {what} from {cache.path}, and there is "
                            "no terminal to ask: pass --yes to confirm")
        answer = input(f"delete {what} from {cache.path}? Paid answers are not recoverable "
                       "[y/N] ")
        if answer.strip().lower() not in {"y", "yes"}:
            print("nothing deleted")
            return 0
    deleted = cache.clear(model)
    print(f"deleted {plural(deleted, 'entry', 'entries')} from {cache.path}")
    return 0

