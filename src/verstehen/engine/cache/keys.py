"""What names a cached call: the cache file's default place and the keys and checksums."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import NotRequired, TypedDict

from verstehen.models.base import Message, ParamsDict


class GenerateRequest(TypedDict):
    """What names a generation in its key: the messages, every parameter, the sample index
    (0 at temperature 0), and how the model ends a reply where that is its own."""

    messages: list[Message]
    params: ParamsDict
    sample: int
    generation: NotRequired[str]


class LogprobsRequest(TypedDict):
    """What names a likelihood call in its key: the context and continuations, and how the
    model computes likelihoods where that is its own."""

    context: str
    continuations: list[str]
    scoring: NotRequired[str]


def default_cache_path() -> Path:
    """$VERSTEHEN_CACHE, else ~/.cache/verstehen/calls.sqlite (XDG_CACHE_HOME honoured)."""
    if env := os.environ.get("VERSTEHEN_CACHE"):
        return Path(env).expanduser()
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "verstehen" / "calls.sqlite"


def cache_file(path: Path | str | None = None) -> Path:
    """The cache file a path names (`~` expanded), or the default one when none is given."""
    return Path(path).expanduser() if path else default_cache_path()


# Made once: json.dumps with options builds a new encoder each call, garbage on every call.
_KEY_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                             check_circular=False)
RESPONSE_JSON = json.JSONEncoder(ensure_ascii=False)
_ASCII_JSON = json.JSONEncoder()


def escaped_json(text: str, response: object) -> str:
    """`text`, the response's JSON, when it is valid UTF-8; else the response's JSON with every
    character beyond ASCII escaped (a lone surrogate as \\udXXX, read back as it was)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _ASCII_JSON.encode(response)
    return text


def call_key(identity: dict[str, str], kind: str,
             request: GenerateRequest | LogprobsRequest) -> str:
    """SHA-256 of the model's identity, the kind of call and the full request."""
    payload = _KEY_JSON.encode({"model": identity, "kind": kind, "request": request})
    # surrogatepass: a request holding a lone surrogate gets a key, not an encoding error
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


def checksum(text: str) -> str:
    """The SHA-256 stored beside a response text."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
