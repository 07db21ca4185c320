"""The HTTP client the SDKs send through: a whole reply within the call's deadline, at most
MAX_REPLY_BYTES of it once decompressed.

The openai and anthropic SDKs take an `AsyncClient` of the httpx they are built on; ours has
a `BoundedTransport` that hands each request to an ordinary inner client (proxies from the
environment, connection pooling, TLS as the SDK's default client has them) and reads the
whole reply there: headers and body under one deadline (a server that trickles its reply a
byte a second gives up at the deadline, where httpx's timeouts bound each read alone), and
the body decompressed here, counted as it inflates (a 200 KB gzip bomb stops at the limit).
We ask for `Accept-Encoding: identity`; a server that compresses anyway is still bounded.
Both faults are TransientErrors, which the SDKs let through unchanged. A request whose URL
holds a user name or password is never sent (CallFailed). LiteLLM's transport
(`litellm_transport.py`, on LiteLLM's own httpx) reads bodies with `read_bounded` too.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncIterator, Mapping

try:  # the openai and anthropic SDKs of today are built on httpx2, older ones on httpx
    import httpx2 as httpx
except ImportError:  # pragma: no cover - depends on the SDK versions installed
    import httpx  # type: ignore[no-redef]

from verstehen.errors import CallFailed, TransientError
from verstehen.models.limits import MAX_REPLY_BYTES, size_text

# as the SDKs' default clients have them
CONNECTION_LIMITS = httpx.Limits(max_connections=1000, max_keepalive_connections=100)
# headers that described the body as sent; the body handed on is whole and decoded
_BODY_HEADERS = ("content-encoding", "content-length", "transfer-encoding")


def bounded_client(deadline: float, max_bytes: int = MAX_REPLY_BYTES) -> httpx.AsyncClient:
    """An AsyncClient for an SDK (`http_client=`) whose every reply is whole within `deadline`
    seconds and at most `max_bytes` decompressed, with the SDK default client's settings."""
    return httpx.AsyncClient(transport=BoundedTransport(deadline, max_bytes),
                             follow_redirects=True, headers={"Accept-Encoding": "identity"})


class BoundedTransport(httpx.AsyncBaseTransport):
    """Sends through an inner client and returns the reply read whole and decoded; a
    TransientError when it is not done within `deadline` seconds or is over `max_bytes`."""

    def __init__(self, deadline: float, max_bytes: int = MAX_REPLY_BYTES) -> None:
        self.deadline, self.max_bytes = deadline, max_bytes
        self._inner = httpx.AsyncClient(limits=CONNECTION_LIMITS, follow_redirects=False)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """The whole reply, or TransientError saying which limit it broke."""
        refuse_userinfo(request.url.userinfo)
        request.headers["Accept-Encoding"] = "identity"
        try:
            return await asyncio.wait_for(self._whole_reply(request), self.deadline)
        except asyncio.TimeoutError:
            raise TransientError(f"Timeout: no whole reply within {self.deadline:g} s (the "
                                 "server is silent or sends too slowly)") from None

    async def _whole_reply(self, request: httpx.Request) -> httpx.Response:
        reply = await self._inner.send(request, stream=True)
        try:
            body = await read_bounded(reply.aiter_raw(), reply.headers, self.max_bytes)
        finally:
            await reply.aclose()  # a reply left unread closes its connection
        headers = [(k, v) for k, v in reply.headers.multi_items()
                   if k.lower() not in _BODY_HEADERS]
        return httpx.Response(reply.status_code, headers=headers, content=body,
                              request=request, extensions=reply.extensions)

    async def aclose(self) -> None:
        """Close the inner client's connections."""
        await self._inner.aclose()


async def read_bounded(chunks: AsyncIterator[bytes], headers: Mapping[str, str],
                       max_bytes: int) -> bytes:
    """The body decoded as its Content-Encoding says; TransientError as soon as it passes
    `max_bytes` (declared, received or inflated), holding little more than that meanwhile."""
    declared = headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes and not headers.get("content-encoding"):
        raise over_limit(max_bytes)
    body = bytearray()
    decoder = Decoder(headers.get("content-encoding", ""), max_bytes, body)
    try:
        async for chunk in chunks:
            decoder.feed(chunk)
        decoder.flush()
    except BaseException:
        body.clear()  # the error's traceback keeps this frame alive: free its megabytes now
        raise
    return bytes(body)


def refuse_userinfo(userinfo: bytes) -> None:
    """CallFailed before sending a request whose URL holds a user name or password (every
    entry point refuses such URLs first: this is the last guard)."""
    if userinfo:
        raise CallFailed("a URL with a user name or password is never sent: give the "
                         "server's key with --api-key-env VAR")


def over_limit(max_bytes: int) -> TransientError:
    """The error of a reply bigger than the limit."""
    return TransientError(f"reply over {size_text(max_bytes)}: the server sent more than "
                          "any answer needs")


class Decoder:
    """Inflates a body sent as identity, gzip or deflate into `sink`, bounded as it grows."""

    # bytes inflated per step: a bomb is refused having held the limit plus one step
    STEP = 256 * 1024

    def __init__(self, encoding: str, max_bytes: int, sink: bytearray) -> None:
        coding = encoding.strip().lower()
        if coding not in {"", "identity", "gzip", "x-gzip", "deflate"}:
            raise TransientError(f"reply in content-encoding {coding[:40]!r}, which we did "
                                 "not ask for (identity, or gzip/deflate, is read)")
        self.coding, self.max_bytes, self.sink = coding, max_bytes, sink
        self._zlib: zlib._Decompress | None = None
        if coding in {"gzip", "x-gzip"}:
            self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self._raw_deflate_tried = False

    def feed(self, chunk: bytes) -> None:
        """Decode one more chunk of the body into the sink."""
        if self.coding in {"", "identity"}:
            self._take(chunk)
            return
        if self._zlib is None:  # deflate: zlib-wrapped as the standard says, or raw
            self._zlib = zlib.decompressobj(zlib.MAX_WBITS)
        if self._zlib.eof and chunk:  # zlib would keep it all in `unused_data`
            raise TransientError(f"reply has data after the end of its {self.coding} stream")
        try:
            self._take(self._zlib.decompress(chunk, self.STEP))
            while self._zlib.unconsumed_tail:
                self._take(self._zlib.decompress(self._zlib.unconsumed_tail, self.STEP))
        except zlib.error:
            if self.coding != "deflate" or self._raw_deflate_tried or self.sink:
                raise TransientError(f"reply not valid {self.coding} data") from None
            self._raw_deflate_tried = True  # some servers send deflate without its wrapper
            self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
            self.feed(chunk)

    def flush(self) -> None:
        """Add what the decompressor still holds at the end of the body."""
        if self._zlib is not None:
            self._take(self._zlib.flush())

    def _take(self, data: bytes) -> None:
        if len(self.sink) + len(data) > self.max_bytes:
            raise over_limit(self.max_bytes)
        self.sink += data
