"""Flags shared by several commands, and the checked types their values are read with.

A bad value fails while parsing, as one line naming the flag ("argument --questions: must be at
least 1, not 0") with exit code 2, before anything runs.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from verstehen.cli.parser import EXIT_USER_ERROR as EXIT_USER_ERROR
from verstehen.cli.parser import Parser as Parser
from verstehen.cli.resume import add_resume_flag
from verstehen.engine.session import RunSettings
from verstehen.engine.settings import EngineSettings
from verstehen.errors import UserError
from verstehen.methods.options import COUNT_MAX, SEED_MAX
from verstehen.models import DEFAULT_MODEL, split_name
from verstehen.models.endpoints import one_or_several, read_url_list
from verstehen.models.remote import base_url_address
from verstehen.models.servers import SERVER_KINDS
from verstehen.textfiles import surrogate_problem


def _number(text: str, kind: type) -> Any:
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not {'an integer' if kind is int else 'a number'}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def _in_range(kind: type, low: float, high: float, doc: str) -> Callable[[str], Any]:
    """A flag type reading a `kind` number from `low` to `high`."""

    def read(text: str) -> Any:
        value = _number(text, kind)
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, not {value}")
        if value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high:,}, not {value:,}")
        return value

    read.__doc__ = doc
    return read



positive_int = _in_range(int, 1, COUNT_MAX, "A count from 1 to 10,000,000.")
nonnegative_int = _in_range(int, 0, COUNT_MAX, "A count from 0 to 10,000,000.")
seed = _in_range(int, 0, SEED_MAX, "A random seed from 0 to 2**32 - 1.")
thread_count = _in_range(int, 1, 1024, "A number of CPU threads from 1 to 1,024.")
temperature = _in_range(float, 0, 10, "A sampling temperature from 0 to 10.")
# one attempt may wait up to a day; larger values overflow the socket layer's timers
positive_seconds_max = 86_400.0


def unit_interval(text: str) -> float:
    """A number in [0, 1] (a score or a mean)."""
    value = _number(text, float)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must lie in [0, 1], not {value}")
    return value


def probability(text: str) -> float:
    """A number strictly between 0 and 1 (a passing grade, a rate, δ)."""
    value = _number(text, float)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 1, not {value}")
    return value


def positive_seconds(text: str) -> float:
    """A number of seconds greater than 0 and at most a day."""
    value = _number(text, float)
    if not 0 < value <= positive_seconds_max:
        raise argparse.ArgumentTypeError(
            f"must be more than 0 and at most {positive_seconds_max:,.0f} seconds, not {value}")
    return value


def variable_name(text: str) -> str:
    """The name of an environment variable (letters, digits, underscores)."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an environment variable name: give the variable's name "
            "(e.g. MY_SERVER_KEY), not the key itself")
    return text


def model_name(text: str) -> str:
    """A model name `provider/model` with a known provider, in UTF-8."""
    if problem := surrogate_problem(text, escaped_bytes=True):
        raise argparse.ArgumentTypeError(f"the model name is not UTF-8 text: {problem}")
    try:
        split_name(text)
    except UserError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def base_url(text: str) -> str:
    """An http(s) URL with a host, and a port from 1 to 65535 where it names one."""
    try:
        base_url_address(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def base_urls(text: str) -> tuple[str, ...]:
    """One base URL, or `@FILE`: the URLs of a file, one a line (`#` starts a comment)."""
    try:
        return read_url_list(Path(text[1:])) if text.startswith("@") else (base_url(text),)
    except UserError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


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
