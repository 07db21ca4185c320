"""What the HTTP providers share: fault classification, Retry-After, reachability."""

from __future__ import annotations

import email.utils
import socket
import time
from collections.abc import Mapping
from urllib.parse import urlparse

from verstehen.errors import CallFailed, TransientError, UserError

RETRYABLE_STATUS = {408, 409, 429, 500, 502, 503, 504, 529}


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


def classify_sdk_error(exc: Exception) -> Exception:
    """Map an openai/anthropic SDK error to TransientError (retry) or CallFailed (give up)."""
    status = getattr(exc, "status_code", None)
    name = type(exc).__name__
    if status is None:
        if name in {"APIConnectionError", "APITimeoutError"}:
            return TransientError(f"{name}: {exc}")
        return CallFailed(f"{name}: {exc}")
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if status in RETRYABLE_STATUS or status >= 500:
        return TransientError(f"HTTP {status}", retry_after=retry_after_seconds(headers))
    return CallFailed(f"HTTP {status}: {getattr(exc, 'message', exc)}")


def base_url_address(base_url: str) -> tuple[str, int]:
    """The host and port a base URL names; ValueError saying what is wrong with it."""
    parsed = urlparse(base_url)
    try:
        port = parsed.port if parsed.port is not None else (
            443 if parsed.scheme == "https" else 80)
    except ValueError:  # a port out of range
        port = 0
    if parsed.scheme not in {"http", "https"} or not parsed.hostname:
        raise ValueError(f"{base_url!r} is not an http(s) URL with a host: "
                         "write e.g. http://127.0.0.1:8000/v1")
    if not port:
        raise ValueError(f"{base_url!r} names no port from 1 to 65535")
    return parsed.hostname, port


def check_reachable(base_url: str, timeout: float = 3.0) -> None:
    """Raise UserError unless the base URL is well formed and a TCP connection to its host
    and port opens."""
    try:
        host, port = base_url_address(base_url)
    except ValueError as exc:
        raise UserError(f"malformed base URL: {exc}") from None
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise UserError(
            f"cannot reach {base_url} ({reason}): is the server running? check --base-url"
        ) from None
