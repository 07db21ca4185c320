"""One model behind several endpoints: the URL list, the pool that spreads calls, the counts.

Replicas of one model (vLLM data-parallel servers, Ray Serve replicas) are listed together;
the user says by doing so that they serve the same weights, so which one answers does not
change the cache key. `EndpointPool.call` sends each call to the live endpoint with the fewest
calls outstanding, under a limit per endpoint; after `failures_to_down` transient failures in
a row (connection refused, 5xx, timeout) an endpoint is down for a cool-down that doubles each
time it goes down again, and the call moves to another endpoint at once. No SDK is imported
here.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Generic, TypeVar

from verstehen.errors import TransientError, UserError
from verstehen.models.base import EndpointUsage
from verstehen.models.limits import MAX_REPLY_BYTES, size_text
from verstehen.models.remote import (
    base_url_address,
    check_reachable,
    escape_controls,
    public_url,
    redact,
    refuse_credentials,
)
from verstehen.models.servers import kind_from_owners
from verstehen.textfiles import read_text

C = TypeVar("C")
T = TypeVar("T")

FAILURES_TO_DOWN = 3
COOLDOWN = 30.0  # seconds an endpoint sits out after it first goes down; doubles each time
MAX_COOLDOWN = 480.0


def endpoint_list(base_url: str | Sequence[str] | None) -> tuple[str, ...]:
    """The base URL(s) as a tuple: none, one, or several distinct URLs (UserError for a URL
    listed twice)."""
    if base_url is None:
        return ()
    urls = (base_url,) if isinstance(base_url, str) else tuple(base_url)
    seen: set[str] = set()
    for url in urls:
        if url in seen:
            raise UserError(f"base URL {public_url(url)} is listed twice: list each replica once")
        seen.add(url)
    return urls


def one_or_several(base_url: str | Sequence[str] | None) -> str | tuple[str, ...] | None:
    """None, one URL as text (today's form, kept in identities and run.json), or a tuple."""
    urls = endpoint_list(base_url)
    return None if not urls else urls[0] if len(urls) == 1 else urls


def read_url_list(path: Path) -> tuple[str, ...]:
    """The URLs of a file, one a line (blank lines and `#` comments skipped); UserError
    naming file:line for a line that is not an http(s) URL with a host."""
    urls = []
    for n, line in enumerate(read_text(path, "base URL file").splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            base_url_address(text)
        except ValueError as exc:
            raise UserError(f"{path}:{n}: {exc}") from None
        urls.append(text)
    if not urls:
        raise UserError(f"base URL file {path} holds no URL: write one a line")
    return endpoint_list(urls)


def check_endpoints(urls: str | Sequence[str]) -> str:
    """UserError unless a connection to the base URL (one of several) opens; for several,
    the line that names those that cannot be reached now ("" when all can)."""
    if isinstance(urls, str):
        check_reachable(urls)
        return ""
    for url in urls:  # refused whole, not counted as a replica that cannot be reached
        refuse_credentials(url)
    down = []
    for url in urls:
        try:
            check_reachable(url)
        except UserError as exc:
            down.append(str(exc))
    if len(down) == len(urls):
        raise UserError(f"none of the {len(urls)} base URLs can be reached: {down[0]}")
    if not down:
        return ""
    return (f"{len(down)} of {len(urls)} endpoints cannot be reached now, their calls go to "
            f"the others: " + "; ".join(down))


@dataclass(frozen=True)
class EndpointInfo:
    """What an endpoint's /v1/models said: the models it serves and its server kind, or why
    it could not be asked."""

    url: str
    models: tuple[str, ...] = ()
    kind: str = ""
    error: str = ""


def describe_endpoint(url: str, key: str | None = None, timeout: float = 3.0) -> EndpointInfo:
    """Ask one endpoint's /v1/models (with the key, if any) what it serves: the whole reply
    within `timeout` seconds and MAX_REPLY_BYTES, model names with control characters
    escaped (they are printed)."""
    request = urllib.request.Request(url.rstrip("/") + "/models")
    if key:
        request.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            listing = json.loads(read_within(reply, timeout)).get("data") or []
    except urllib.error.HTTPError as exc:
        return EndpointInfo(public_url(url), error=f"HTTP {exc.code} on /models")
    except (OSError, ValueError, AttributeError, RecursionError, TransientError) as exc:
        return EndpointInfo(public_url(url), error=redact(str(getattr(exc, "reason", exc)), key))
    entries = [m for m in listing if isinstance(m, dict)] if isinstance(listing, list) else []
    return EndpointInfo(public_url(url), tuple(escape_controls(str(m.get("id")))
                                               for m in entries),
                        kind_from_owners([m.get("owned_by") for m in entries]))


def read_within(reply: BinaryIO, seconds: float, max_bytes: int = MAX_REPLY_BYTES) -> bytes:
    """A blocking reply's body, whole within `seconds` and at most `max_bytes`; TransientError
    otherwise (each read waits at most the socket's own timeout)."""
    deadline, parts, size = time.monotonic() + seconds, [], 0
    while chunk := reply.read1(65536):  # type: ignore[attr-defined]
        size += len(chunk)
        if size > max_bytes:
            raise TransientError(f"reply over {size_text(max_bytes)}")
        if time.monotonic() > deadline:
            raise TransientError(f"Timeout: no whole reply within {seconds:g} s")
        parts.append(chunk)
    return b"".join(parts)


def pool_identity(urls: Sequence[str]) -> str:
    """The base URL part of a pooled model's identity: its URLs without credentials, sorted
    and space-separated (the order they were listed in and the replica that answered do not
    matter; one URL is itself)."""
    return " ".join(sorted(public_url(url) for url in urls))


class Endpoint(Generic[C]):
    """One endpoint of a pool: its client and what the pool knows of it."""

    __slots__ = ("calls", "client", "down_until", "downs", "errors", "failures", "index",
                 "next_cooldown", "outstanding", "peak", "public", "url")

    def __init__(self, index: int, url: str, client: C) -> None:
        self.index, self.url, self.client = index, url, client
        self.public = public_url(url)
        self.calls = self.errors = self.outstanding = self.peak = self.downs = 0
        self.failures = 0  # transient failures in a row
        self.down_until = 0.0
        self.next_cooldown = COOLDOWN

    def usage(self) -> EndpointUsage:
        """Its counts, typed."""
        return EndpointUsage(self.public, self.calls, self.errors, self.peak, self.downs)


class EndpointPool(Generic[C]):
    """Endpoints of one model, each with at most `limit` calls in flight.

    `call(fn)` runs `fn(endpoint)` on the live endpoint with the fewest outstanding calls
    (waiting while every live one is full). A `TransientError` from `fn` counts against the
    endpoint and the call moves to one it has not tried yet; when none is left (all down, or
    all tried) the last error is raised for the runner to back off and retry. Other errors
    pass through unchanged. One endpoint: no limit, no down-marking (the runner's retries do).
    """

    def __init__(self, endpoints: Sequence[tuple[str, C]], limit: int, *,
                 failures_to_down: int = FAILURES_TO_DOWN, cooldown: float = COOLDOWN,
                 max_cooldown: float = MAX_COOLDOWN,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not endpoints:
            raise ValueError("a pool needs at least one endpoint")
        self.endpoints = [Endpoint(i, url, client) for i, (url, client) in enumerate(endpoints)]
        self.limit = limit
        self.failures_to_down, self.cooldown, self.max_cooldown = (
            failures_to_down, cooldown, max_cooldown)
        for endpoint in self.endpoints:
            endpoint.next_cooldown = cooldown
        self._clock = clock
        self._waiters: list[asyncio.Future[None]] = []
        self._turn = 0  # ties go round the endpoints, not always to the first

    def usage(self) -> tuple[EndpointUsage, ...]:
        """Each endpoint's counts, in the order listed."""
        return tuple(endpoint.usage() for endpoint in self.endpoints)

    async def call(self, fn: Callable[[Endpoint[C]], Awaitable[T]]) -> T:
        """`fn` on the best live endpoint, moved to another on a transient failure."""
        if len(self.endpoints) == 1:
            return await fn(self.endpoints[0])
        tried: set[int] = set()
        while True:
            endpoint = await self._acquire(tried)
            try:
                value = await fn(endpoint)
            except TransientError:
                self._failed(endpoint)
                tried.add(endpoint.index)
                if not self._live(tried):  # every endpoint down or tried for this call
                    raise
                continue
            except Exception:
                endpoint.errors += 1
                raise
            finally:
                self._release(endpoint)
            endpoint.failures = 0
            endpoint.next_cooldown = self.cooldown
            return value

    def _live(self, tried: set[int]) -> list[Endpoint[C]]:
        now = self._clock()
        return [e for e in self.endpoints if e.down_until <= now and e.index not in tried]

    async def _acquire(self, tried: set[int]) -> Endpoint[C]:
        while True:
            live = self._live(tried)
            if not live:
                raise self._all_down()
            free = [e for e in live if e.outstanding < self.limit]
            if free:
                n = len(self.endpoints)
                self._turn = turn = (self._turn + 1) % n
                best = min(free, key=lambda e: (e.outstanding, (e.index - turn) % n))
                best.outstanding += 1
                best.calls += 1
                best.peak = max(best.peak, best.outstanding)
                return best
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            await waiter

    def _release(self, endpoint: Endpoint[C]) -> None:
        endpoint.outstanding -= 1
        # few wait (the runner's limit is the pool's total); each looks again for itself
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def _failed(self, endpoint: Endpoint[C]) -> None:
        endpoint.errors += 1
        now = self._clock()
        if endpoint.down_until > now:
            return  # a call sent before it went down: it is down already
        endpoint.failures += 1
        if endpoint.failures >= self.failures_to_down:
            endpoint.down_until = now + endpoint.next_cooldown
            endpoint.next_cooldown = min(endpoint.next_cooldown * 2, self.max_cooldown)
            endpoint.downs += 1
            # back from a cool-down, one more failure sends it down again
            endpoint.failures = self.failures_to_down - 1

    def _all_down(self) -> TransientError:
        now = self._clock()
        back = min(e.down_until for e in self.endpoints) - now
        urls = ", ".join(e.public for e in self.endpoints)
        return TransientError(f"every endpoint is down or failed this call ({urls})",
                              retry_after=max(back, 0.0) or None)
