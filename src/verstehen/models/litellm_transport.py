"""The HTTP transport every `litellm/` call goes through: the rules of `models/transport.py`
(a whole reply within the call's deadline, at most MAX_REPLY_BYTES once decompressed) and the
key rules (a base URL's server gets no key but `--api-key-env`'s; no URL with a password).

LiteLLM builds each async HTTP client it uses, around the openai SDK it wraps and for its own
handlers alike, on a transport from `AsyncHTTPHandler.create_async_transport`; `install`
makes that a `LiteLLMTransport` (LiteLLM's aiohttp transport is then unused). LiteLLM's httpx
is httpx itself, not the SDKs' httpx2, so this transport is built on it; the body is read by
`transport.read_bounded` all the same. What a call may do is in a context variable that the
model sets around each `litellm.acompletion` (`call_rules`): the transport reads it, counts
the requests it carried and keeps the fault it raised, so that a reply that did not come
through it, or a fault LiteLLM rewrapped, is still refused as ours.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from types import ModuleType

import httpx

from verstehen.errors import CallFailed, TransientError
from verstehen.models.limits import MAX_REPLY_BYTES
from verstehen.models.remote import DEFAULT_TIMEOUT, public_url
from verstehen.models.transport import read_bounded, refuse_userinfo

_BODY_HEADERS = ("content-encoding", "content-length", "transfer-encoding")
# as `transport.CONNECTION_LIMITS` (those of the SDKs' default clients), in LiteLLM's httpx
CONNECTION_LIMITS = httpx.Limits(max_connections=1000, max_keepalive_connections=100)
# where LiteLLM makes the transports of its async clients (a static method of this class)
HANDLER_MODULE = "litellm.llms.custom_httpx.http_handler"
TRANSPORT_MAKERS = ("create_async_transport", "_create_async_transport")


@dataclass
class CallRules:
    """What one `litellm/` call may do, and what the transport saw of it: `withheld` are the
    (variable, value) of keys none of its requests may carry (to a base URL, every key but
    --api-key-env's); `requests` counts what it carried, `fault` is what it raised last."""

    deadline: float = DEFAULT_TIMEOUT
    withheld: tuple[tuple[str, str], ...] = ()
    max_bytes: int = MAX_REPLY_BYTES
    requests: int = 0
    fault: TransientError | CallFailed | None = None


_RULES: ContextVar[CallRules | None] = ContextVar("verstehen_litellm_call", default=None)


@contextlib.contextmanager
def call_rules(rules: CallRules) -> Iterator[CallRules]:
    """Apply `rules` to the requests LiteLLM sends in this context (this task and those it
    starts), and give them back to read what the transport saw."""
    token = _RULES.set(rules)
    try:
        yield rules
    finally:
        _RULES.reset(token)


class LiteLLMTransport(httpx.AsyncBaseTransport):
    """Sends through an inner client (proxies from the environment, connection pooling) and
    returns the reply read whole and decoded, under the rules of the call it belongs to."""

    def __init__(self) -> None:
        self._inner = httpx.AsyncClient(limits=CONNECTION_LIMITS, follow_redirects=False)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """The whole reply; TransientError or CallFailed (kept in the call's rules) for a
        request the rules refuse or a reply that breaks a limit."""
        rules = _RULES.get() or CallRules()  # LiteLLM used outside a call: the limits still hold
        rules.requests += 1
        try:
            refuse_userinfo(request.url.userinfo)
            refuse_withheld(request, rules.withheld)
            request.headers["Accept-Encoding"] = "identity"
            try:
                return await asyncio.wait_for(self._whole_reply(request, rules.max_bytes),
                                              rules.deadline)
            except asyncio.TimeoutError:
                raise TransientError(f"Timeout: no whole reply within {rules.deadline:g} s "
                                     "(the server is silent or sends too slowly)") from None
        except (TransientError, CallFailed) as exc:
            rules.fault = exc
            raise

    async def _whole_reply(self, request: httpx.Request, max_bytes: int) -> httpx.Response:
        reply = await self._inner.send(request, stream=True)
        try:
            body = await read_bounded(reply.aiter_raw(), reply.headers, max_bytes)
        finally:
            await reply.aclose()  # a reply left unread closes its connection
        headers = [(k, v) for k, v in reply.headers.multi_items()
                   if k.lower() not in _BODY_HEADERS]
        return httpx.Response(reply.status_code, headers=headers, content=body,
                              request=request, extensions=reply.extensions)

    async def aclose(self) -> None:
        """Close the inner client's connections."""
        await self._inner.aclose()


def refuse_withheld(request: httpx.Request, withheld: tuple[tuple[str, str], ...]) -> None:
    """CallFailed, before it is sent, for a request whose URL or headers carry a withheld key
    (LiteLLM reads provider keys from the environment by itself)."""
    if not withheld:
        return
    texts = [str(request.url), *(value for _, value in request.headers.multi_items())]
    for name, secret in withheld:
        if any(secret in text for text in texts):
            raise CallFailed(f"refused to send the key in {name} to {public_url(str(request.url))}"
                             ": a base URL's server gets only the key --api-key-env names")


def make_transport(*args: object, **kwargs: object) -> LiteLLMTransport:
    """What LiteLLM's `create_async_transport` returns once installed (its arguments, TLS and
    aiohttp settings, are left to the inner client's defaults)."""
    return LiteLLMTransport()


def install(litellm: ModuleType) -> None:
    """Make every async client LiteLLM builds from now on send through a LiteLLMTransport."""
    handler = importlib.import_module(HANDLER_MODULE).AsyncHTTPHandler
    for name in TRANSPORT_MAKERS:
        setattr(handler, name, staticmethod(make_transport))
    setattr(litellm, "disable_aiohttp_transport", True)  # noqa: B010 (a module, typed loosely)

