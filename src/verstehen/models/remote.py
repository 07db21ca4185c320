"""What the HTTP providers share: fault classification, Retry-After, reachability, and the
rules for reasoning models (which reason by default, their reasoning budget)."""

from __future__ import annotations

import email.utils
import json
import os
import re
import socket
import sys
import time
from collections.abc import Mapping
from typing import Any, overload
from urllib.parse import urlparse, urlunparse

from verstehen.errors import CallFailed, TransientError, UserError
from verstehen.models.families import openai_family
from verstehen.models.limits import MAX_ERROR_CHARS

RETRYABLE_STATUS = {408, 409, 429, 500, 502, 503, 504, 529}
# seconds to wait for one reply from a remote server before the attempt counts as a timeout
DEFAULT_TIMEOUT = 60.0
KEY_HIDDEN = "[key hidden]"
_URL = re.compile(r"\bhttps?://[^\s'\"<>]+")
# C0 but tab and newline, DEL, C1; and lone surrogates, which no file or database can store
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")

# OpenAI's reasoning guide asks to reserve at least 25,000 tokens for reasoning and answer at
# first; the cap bounds what a call may spend, it is no allocation: a cap too small is worse,
# it pays for reasoning and returns an empty reply
DEFAULT_REASONING_BUDGET = 25_000
MIN_THINKING_BUDGET = 1024  # Anthropic refuses a smaller thinking.budget_tokens


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from `retry-after-ms` or `retry-after` (seconds or an HTTP date)."""
    if not headers:
        return None
    if (ms := headers.get("retry-after-ms")) is not None:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        return max(0.0, parsed.timestamp() - time.time()) if parsed else None


def classify_sdk_error(exc: Exception, key: str | None = None) -> Exception:
    """Map an openai/anthropic SDK error to TransientError (retry) or CallFailed (give up),
    with anything in its text that looks like `key` hidden (errors are stored in records).

    A TransientError or CallFailed of our own (a reply over its size or deadline, a URL with
    credentials: `models/transport.py`) passes as it is, and so does one an SDK wrapped; a
    body the SDK could not parse is a malformed reply, a fault of that server."""
    if (own := own_error(exc)) is not None:
        return own
    status = getattr(exc, "status_code", None)
    name = type(exc).__name__
    if status is None:
        if name in {"APIConnectionError", "APITimeoutError"}:
            return TransientError(redact(f"{name}: {exc}", key))
        if isinstance(exc, json.JSONDecodeError | UnicodeDecodeError | RecursionError):
            return TransientError(redact(f"malformed reply: {name}: {exc}", key))
        return CallFailed(redact(f"{name}: {exc}", key))
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if status in RETRYABLE_STATUS or status >= 500:
        return TransientError(f"HTTP {status}", retry_after=retry_after_seconds(headers))
    hint = ""
    if status == 401:
        hint = (" (the server refused the key sent)" if key else
                " (no key was sent: name the variable that holds it with --api-key-env)")
    return CallFailed(f"HTTP {status}: {redact(str(getattr(exc, 'message', exc)), key)}{hint}")


def own_error(exc: BaseException) -> TransientError | CallFailed | None:
    """The TransientError or CallFailed `exc` is, or was raised from (an SDK may wrap what
    the transport raised); None when there is none."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, TransientError | CallFailed):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__
    return None


def redact(text: str, key: str | None) -> str:
    """`text` with the key, any 8 or more of its characters in a row, and credentials in URLs
    hidden (servers echo keys in their error messages, "Incorrect API key: sk-ab***yz"),
    control characters escaped, and cut to MAX_ERROR_CHARS (it comes from a server)."""
    text = _URL.sub(lambda m: public_url(m.group(0)), text)
    if key and len(key) < 8:
        text = text.replace(key, KEY_HIDDEN)
    elif key:
        words = re.split(r"(\s+|[\"'`,;()\[\]{}])", text)
        text = "".join(KEY_HIDDEN if len(w) >= 8 and _shares_key(w, key) else w for w in words)
    return shorten(escape_controls(text), MAX_ERROR_CHARS)


def escape_controls(text: str) -> str:
    """`text` with every control character but tab and newline (C0, DEL, C1: ESC, CR, BEL,
    backspace...) written as `\\x1b`, so no printed or stored error carries a terminal
    escape sequence, a carriage return that overwrites a line, or a bell; a lone surrogate
    is written `\\ud800`."""
    return _CONTROLS.sub(lambda m: _escaped(ord(m.group(0))), text)


def _escaped(code: int) -> str:
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shorten(text: str, limit: int) -> str:
    """`text` up to `limit` characters, and how many more there were."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit} more characters)"


def _shares_key(word: str, key: str) -> bool:
    """True when the word holds 8 or more characters of the key in a row."""
    return any(word[i:i + 8] in key for i in range(len(word) - 7))


def public_url(url: str) -> str:
    """The URL without user name and password (what run.json, records and messages keep)."""
    parsed = urlparse(url)
    if "@" not in parsed.netloc:
        return url
    return urlunparse(parsed._replace(netloc=parsed.netloc.rpartition("@")[2]))


@overload
def without_credentials(value: str) -> str: ...
@overload
def without_credentials(value: list[str]) -> list[str]: ...
@overload
def without_credentials(value: list[dict[str, str]]) -> list[dict[str, str]]: ...
@overload
def without_credentials(value: dict[str, Any]) -> dict[str, Any]: ...
@overload
def without_credentials(value: object) -> object: ...


def without_credentials(value: object) -> object:
    """A JSON-like value with user names and passwords removed from every URL in its text."""
    if isinstance(value, str):
        return _URL.sub(lambda m: public_url(m.group(0)), value)
    if isinstance(value, list | tuple):
        return [without_credentials(v) for v in value]
    if isinstance(value, dict):
        return {k: without_credentials(v) for k, v in value.items()}
    return value


# each provider's own key variable and the only host it is sent to without --api-key-env
KEY_OF = {"openai": ("OPENAI_API_KEY", "api.openai.com"),
          "anthropic": ("ANTHROPIC_API_KEY", "api.anthropic.com")}


def api_key(default_variable: str, official_host: str, base_url: str | None,
            key_variable: str | None, provider: str) -> str | None:
    """The key to send: from `key_variable` when named; from the provider's own variable only
    to its official host; none to any other server (a local server must not get a paid key)."""
    if key_variable:
        key = os.environ.get(key_variable, "").strip()
        if not key:
            raise UserError(f"--api-key-env names {key_variable}, which is not set: export it "
                            "or name the variable that holds the server's key")
        return key
    if base_url is None or urlparse(base_url).hostname == official_host:
        key = os.environ.get(default_variable, "").strip()
        if not key:
            raise UserError(f"{default_variable} is not set: export it to use {provider}/ models")
        return key
    return None


def credentials_problem(url: str) -> str | None:
    """What is wrong with a URL that holds a user name or password (an HTTP client would send
    them as a Basic login in place of the key, and a server may echo them); None otherwise."""
    netloc = urlparse(url).netloc
    if "@" not in netloc:
        return None
    return (f"{public_url(url)} is given with a user name or password (user:password@), "
            "which verstehen never sends: give the server's key with --api-key-env VAR, VAR "
            "the environment variable that holds it")


def refuse_credentials(url: str, where: str = "base URL") -> None:
    """UserError, one line starting with `where`, for a URL with a user name or password."""
    if (problem := credentials_problem(url)) is not None:
        raise UserError(f"{where} {problem}")


def env_base_url(*variables: str) -> str | None:
    """The URL in the first of the environment `variables` that is set (None: none is);
    UserError naming the variable for a URL with credentials or no http(s) URL with a host."""
    name = next((v for v in variables if os.environ.get(v, "").strip()), None)
    if name is None:
        return None
    url = os.environ[name].strip()
    try:
        base_url_address(url)
    except ValueError as exc:
        raise UserError(f"{name}: {exc}") from None
    return url


def base_url_address(base_url: str) -> tuple[str, int]:
    """The host and port a base URL names; ValueError saying what is wrong with it (one with a
    user name or password is refused too)."""
    if (problem := credentials_problem(base_url)) is not None:
        raise ValueError(problem)
    parsed = urlparse(base_url)
    try:
        port = parsed.port if parsed.port is not None else (
            443 if parsed.scheme == "https" else 80)
    except ValueError:  # a port out of range
        port = 0
    if parsed.scheme not in {"http", "https"} or not parsed.hostname:
        raise ValueError(f"{public_url(base_url)!r} is not an http(s) URL with a host: "
                         "write e.g. http://127.0.0.1:8000/v1")
    if not port:
        raise ValueError(f"{public_url(base_url)!r} names no port from 1 to 65535")
    return parsed.hostname, port


def check_reachable(base_url: str, timeout: float = 3.0) -> None:
    """Raise UserError unless the base URL is well formed and a TCP connection to its host
    and port opens."""
    refuse_credentials(base_url)
    try:
        host, port = base_url_address(base_url)
    except ValueError as exc:
        raise UserError(f"malformed base URL: {exc}") from None
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise UserError(
            f"cannot reach {public_url(base_url)} ({reason}): is the server running? "
            "check --base-url"
        ) from None


def reasoning_by_name(model: str) -> bool:
    """True for the names of OpenAI's models that reason unless asked not to (o1*, o3*, o4*,
    gpt-5 and its codex and pro models; not gpt-5.1 and later, nor gpt-5-chat*)."""
    family = openai_family(model)
    return family is not None and family.reasons


def effective_budget(asked: int | None, default: int | None) -> int | None:
    """The budget a model uses: the one asked (0: none), else its default; None when it has
    none (then its identity, and every cache key made with it, is as before budgets)."""
    if asked is not None and asked < 0:
        raise UserError(f"the reasoning budget must be 0 or more tokens, not {asked}")
    budget = asked if asked is not None else default
    return None if budget is None or (budget == 0 and default is None) else budget


def note(line: str) -> None:
    """Say once on stderr what a run's reader must know about how a model is asked."""
    print(f"verstehen: note: {line}", file=sys.stderr, flush=True)
