"""Value readers: a flag's or a file's text -> a checked value (counts, seeds, probabilities,
seconds, model names, base URLs), each raising `argparse.ArgumentTypeError` with one line on
what is wrong. The command line reads its flags with them and the methods' options declare
them (`option(read=...)`), so they live below both.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from verstehen.errors import UserError
from verstehen.models import split_name
from verstehen.models.endpoints import read_url_list
from verstehen.models.remote import base_url_address
from verstehen.textfiles import surrogate_problem

# no count a run could finish is larger: a bigger one is a typo, refused before it costs money
COUNT_MAX = 10_000_000
SEED_MAX = 2**32 - 1  # llama.cpp and numpy take 32-bit seeds


N = TypeVar("N", int, float)


def _number(text: str, kind: type[N]) -> N:
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not {'an integer' if kind is int else 'a number'}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def _in_range(kind: type[N], low: float, high: float, doc: str) -> Callable[[str], N]:
    """A flag type reading a `kind` number from `low` to `high`."""

    def read(text: str) -> N:
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
