"""Flags shared by several commands, and the checked types their values are read with.

A bad value fails while parsing, as one line naming the flag ("argument --questions: must be at
least 1, not 0") with exit code 2, before anything runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from verstehen.cli.parser import EXIT_USER_ERROR as EXIT_USER_ERROR
from verstehen.cli.parser import Parser as Parser
from verstehen.cli.resume import add_resume_flag
from verstehen.engine.session import RunSettings
from verstehen.engine.settings import EngineSettings
from verstehen.errors import UserError
from verstehen.models import DEFAULT_MODEL
from verstehen.models.endpoints import one_or_several
from verstehen.models.servers import SERVER_KINDS
from verstehen.readers import (
    base_url as base_url,
)
from verstehen.readers import (
    base_urls as base_urls,
)
from verstehen.readers import (
    model_name as model_name,
)
from verstehen.readers import (
    nonnegative_int as nonnegative_int,
)
from verstehen.readers import (
    positive_int as positive_int,
)
from verstehen.readers import (
    positive_seconds as positive_seconds,
)
from verstehen.readers import (
    positive_seconds_max as positive_seconds_max,
)
from verstehen.readers import (
    probability as probability,
)
from verstehen.readers import (
    seed as seed,
)
from verstehen.readers import (
    temperature as temperature,
)
from verstehen.readers import (
    thread_count as thread_count,
)
from verstehen.readers import (
    unit_interval as unit_interval,
)
from verstehen.readers import (
    variable_name as variable_name,
)


class BaseUrls(argparse.Action):
    """--base-url given once is that URL (text); given again, or as a file of several, the
    tuple of them all: replicas of one model."""

    repeatable = True  # each one given adds a replica

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        """Add the URLs to those given before."""
        before = getattr(namespace, self.dest)
        urls = (() if before is None else (before,) if isinstance(before, str)
                else tuple(before)) + tuple(values)
        try:
            setattr(namespace, self.dest, one_or_several(urls))
        except UserError as exc:
            parser.error(f"argument --base-url: {exc}")


def engine_flags() -> Parser:
    """Flags of every command that calls a model: the cache and how calls are made."""
    flags = Parser(add_help=False)
    flags.add_argument("--cache", type=Path, default=None,
                       help="cache file (default $VERSTEHEN_CACHE or "
                            "~/.cache/verstehen/calls.sqlite)")
    flags.add_argument("--base-url", type=base_urls, action=BaseUrls, default=None,
                       metavar="URL",
                       help="OpenAI- or Anthropic-compatible server, e.g. http://127.0.0.1:8000/v1;"
                            " repeat it, or give @FILE (one URL a line), for replicas of one "
                            "openai/ model serving the same weights")
    flags.add_argument("--server-kind", choices=SERVER_KINDS, default=None,
                       help="how the server gives prompt log-probabilities: vllm, llamacpp "
                            "(llama-cpp-python's server), openai (echo only); default auto: "
                            "asked of its /v1/models")
    flags.add_argument("--max-connections", type=positive_int, default=None,
                       help="concurrent calls per model, per endpoint when there are several; "
                            "for a local/ model the replies decoded together (default 8 "
                            "remote, 16 local)")
    flags.add_argument("--max-attempts", type=positive_int, default=6,
                       help="attempts per call on 429, 5xx, timeouts (default 6)")
    flags.add_argument("--threads", type=thread_count, default=None,
                       help="CPU threads of a local/ model (default $VERSTEHEN_THREADS, else "
                            "the cores other processes leave free, looked at before each call)")
    flags.add_argument("--timeout", type=positive_seconds, default=None, metavar="SECONDS",
                       help="seconds one attempt of a remote call waits for the reply before "
                            "it is retried (default 60; local/ models have none)")
    flags.add_argument("--api-key-env", type=variable_name, default=None, metavar="NAME",
                       help="environment variable holding the key for the --base-url server "
                            "(default: no key; OPENAI_API_KEY and ANTHROPIC_API_KEY go to "
                            "api.openai.com and api.anthropic.com only)")
    flags.add_argument("--reasoning-budget", type=nonnegative_int, default=None, metavar="N",
                       help="tokens a remote model's reply may spend reasoning before its "
                            "answer, on top of the answer budget: OpenAI reasoning models get "
                            "max_completion_tokens = answer + N (default 25000 for o1, o3, o4, "
                            "gpt-5), Anthropic models think with budget_tokens N (at least "
                            "1024; default off), other servers get max_tokens = answer + N "
                            "(default none); 0: none. Part of the cache key when set")
    return flags


NO_PROGRESS_HELP = "no progress bar or progress lines on stderr"


def generation_flags() -> Parser:
    """Flags that shape a generation (all of them are part of the cache key)."""
    flags = Parser(add_help=False)
    flags.add_argument("--temperature", type=temperature, default=0.0,
                       help="sampling temperature (default 0: the likeliest token each step)")
    flags.add_argument("--max-tokens", type=positive_int, default=256,
                       help="most tokens a reply may have (default 256)")
    flags.add_argument("--seed", type=seed, default=0,
                       help="seed sent with each call: another seed draws other samples at a "
                            "temperature above 0 (default 0)")
    return flags


def run_flags(engine: Parser, *, max_tokens_help: str = "every reply's token budget, in "
              "place of each prompt's own (lower for quick runs, higher for a model that "
              "reasons at length)") -> Parser:
    """The engine flags plus what every run-making command takes: --max-tokens, --seed,
    --runs-dir, --no-progress, --json, --resume."""
    flags = Parser(add_help=False, parents=[engine])
    flags.add_argument("--max-tokens", type=positive_int, default=None, help=max_tokens_help)
    flags.add_argument("--seed", type=seed, default=0,
                       help="seed of every draw the run makes (questions, their order, samples): "
                            "the same seed asks the same again (default 0)")
    flags.add_argument("--runs-dir", type=Path, default=None,
                       help="parent of run folders (default $VERSTEHEN_RUNS_DIR or ./runs)")
    flags.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    flags.add_argument("--json", action="store_true", help="print one JSON object")
    add_resume_flag(flags)
    return flags


def model_flag(flags: argparse.ArgumentParser, what: str = "provider/model") -> None:
    """--model, defaulting to the embedded model."""
    flags.add_argument("--model", type=model_name, default=DEFAULT_MODEL,
                       help=f"{what} (default {DEFAULT_MODEL})")


def engine_from(args: argparse.Namespace) -> EngineSettings:
    """The engine settings of the engine and run flags (progress unless --no-progress): what
    the API takes as `engine=`."""
    return EngineSettings(base_url=getattr(args, "base_url", None),
                          runs_dir=getattr(args, "runs_dir", None), cache=args.cache,
                          max_connections=args.max_connections, max_attempts=args.max_attempts,
                          progress=not getattr(args, "no_progress", False),
                          threads=args.threads, timeout=args.timeout,
                          api_key_env=args.api_key_env,
                          server_kind=getattr(args, "server_kind", None),
                          reasoning_budget=getattr(args, "reasoning_budget", None))


def settings_from(args: argparse.Namespace) -> RunSettings:
    """The run settings of the flags: their engine settings, --resume, the command line, and
    the run folder announced on stderr."""
    return RunSettings.of(engine_from(args), resume=getattr(args, "resume", None),
                          announce=True, argv=args.argv, inputs=getattr(args, "inputs", ()))


def print_json(value: Any) -> None:
    """Pretty JSON on stdout."""
    json.dump(value, sys.stdout, indent=2)
    sys.stdout.write("\n")
