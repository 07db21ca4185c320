"""A test server that answers every request with whatever bytes a script writes, at any pace:
truncated JSON with status 200, a 100 MB body, a gzip bomb, a reply trickled a byte at a time.

`HostileServer(answer)` calls `await answer(writer, path, payload)` for each request; the
helpers below write the usual answers. A context manager (its own thread and event loop).
"""

from __future__ import annotations

import asyncio
import json
import zlib
from collections.abc import Awaitable, Callable
from functools import cache
from typing import Any

from verstehen.models.base import GenerateParams, user
from verstehen.models.openai_api import OpenAIModel
from verstehen.testing.loop_thread import LocalHttpServer
from verstehen.testing.stub_server import chat_answer

Answer = Callable[[asyncio.StreamWriter, str, dict], Awaitable[None]]
CHUNK = b"x" * 65536


def head(status: int = 200, length: int | None = None, extra: str = "") -> bytes:
    """A response's status line and headers (JSON, `length` bytes when given)."""
    size = f"content-length: {length}\r\n" if length is not None else ""
    return (f"HTTP/1.1 {status} X\r\ncontent-type: application/json\r\n{size}{extra}"
            "\r\n").encode()


def raw(body: bytes, status: int = 200, extra: str = "") -> Answer:
    """Answer these bytes as the body."""
    async def answer(writer: asyncio.StreamWriter, path: str, payload: dict) -> None:
        writer.write(head(status, len(body), extra) + body)
        await writer.drain()

    return answer


def json_reply(body: Any, status: int = 200) -> Answer:
    """Answer this value as JSON (NaN and Infinity written as Python's json writes them)."""
    return raw(json.dumps(body).encode(), status)


def chat_with(**changes: Any) -> Answer:
    """A well-formed chat completion with fields replaced: `content`, `usage`, `choices`."""
    async def answer(writer: asyncio.StreamWriter, path: str, payload: dict) -> None:
        body = chat_answer(payload)
        if "content" in changes:
            body["choices"][0]["message"]["content"] = changes["content"]
        for key in ("usage", "choices"):
            if key in changes:
                body[key] = changes[key]
        for key in changes.get("drop", ()):
            body.pop(key)
        await json_reply(body)(writer, path, payload)

    return answer


def huge(total: int, declared: bool = True) -> Answer:
    """A 200 whose JSON text goes on for `total` bytes, streamed without holding it; its
    length declared in Content-Length, or not (then the body ends when the connection
    closes)."""
    async def answer(writer: asyncio.StreamWriter, path: str, payload: dict) -> None:
        start = b'{"choices": [{"message": {"content": "'
        chunks = total // len(CHUNK)
        length = len(start) + chunks * len(CHUNK) if declared else None
        writer.write(head(200, length, "" if declared else "connection: close\r\n") + start)
        for _ in range(chunks):
            writer.write(CHUNK)
            await writer.drain()
        if not declared:
            writer.close()
            raise ConnectionError("the body ends with the connection")

    return answer


@cache
def bomb(inflated: int = 200 * 2**20) -> bytes:
    """Gzip of `inflated` zero bytes (about 1/1000 of that sent)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(2**20)
    parts = [packer.compress(block) for _ in range(inflated // len(block))]
    return b"".join([*parts, packer.flush()])


def gzipped(body: bytes) -> Answer:
    """Answer `body` gzip-compressed, asked for or not."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return raw(packer.compress(body) + packer.flush(), extra="content-encoding: gzip\r\n")


def trickle(every: float = 1.0, headers_too: bool = False) -> Answer:
    """A valid reply sent one byte each `every` seconds (from its first header byte when
    `headers_too`, else from its body's)."""
    async def answer(writer: asyncio.StreamWriter, path: str, payload: dict) -> None:
        body = json.dumps(chat_answer(payload)).encode()
        start = head(200, len(body))
        if not headers_too:
            writer.write(start)
            start = b""
        for byte in start + body:
            writer.write(bytes([byte]))
            await writer.drain()
            await asyncio.sleep(every)

    return answer


def echo_logprobs(values: list[Any], tokens: list[str] | None = None,
                  usage: dict | None = None) -> Answer:
    """A /completions reply echoing "The capital is Paris" with these log-probabilities."""
    tokens = tokens or ["The", " capital", " is", " Paris"]
    body = {"choices": [{"index": 0, "text": "", "finish_reason": "length",
                         "logprobs": {"tokens": tokens, "token_logprobs": values}}],
            "usage": usage or {"prompt_tokens": len(tokens), "completion_tokens": 1}}
    return json_reply(body)


class HostileServer(LocalHttpServer):
    """Answers each request with `answer`; counts the requests it received and keeps their
    headers."""

    name = "the hostile server"

    def __init__(self, answer: Answer) -> None:
        super().__init__()
        self.answer, self.requests = answer, 0
        self.headers: list[dict[str, str]] = []  # each request's, names in lower case

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while (head_bytes := await _head(reader)) is not None:
                lines = head_bytes.decode("latin-1").split("\r\n")
                path = lines[0].split(" ")[1]
                headers = {k.strip().lower(): v.strip() for k, _, v in
                           (line.partition(":") for line in lines[1:] if line)}
                self.headers.append(headers)
                body = await reader.readexactly(int(headers.get("content-length", 0)))
                self.requests += 1
                await self.answer(writer, path, json.loads(body) if body else {})
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            return  # the server stops while a reply still trickles: the test is over
        finally:
            writer.close()


async def _head(reader: asyncio.StreamReader) -> bytes | None:
    try:
        return await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None


def outcome(model: Any, call: Callable[[Any], Awaitable[Any]], timeout: float = 60) -> object:
    """What `call(model)` returns, or the exception it raises; the model is closed after."""
    async def main() -> object:
        try:
            return await call(model)
        except Exception as exc:
            return exc
        finally:
            await model.aclose()

    return asyncio.run(asyncio.wait_for(main(), timeout))


PARAMS = GenerateParams(max_tokens=8)


def generations(urls: str | list[str], *, timeout: float = 30, calls: int = 1) -> list[object]:
    """The results (a Completion or the exception) of `calls` generations of an openai/ model
    at `urls`, all at once."""
    async def main() -> list[object]:
        model = OpenAIModel("m", base_url=urls, timeout=timeout)
        try:
            return await asyncio.gather(
                *(model.generate(user(f"q{i}"), PARAMS) for i in range(calls)),
                return_exceptions=True)
        finally:
            await model.aclose()

    return asyncio.run(asyncio.wait_for(main(), 60))
