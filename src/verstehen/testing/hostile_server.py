"""An OpenAI-compatible stub that answers healthy, or every request in one bad way, switched at
run time: for tests that a bad server ends in a clean failure or a clean result.

It serves chat completions (the text `verstehen.testing.stub_server` gives), prompt
log-probabilities on /v1/completions with `echo` (one token per character of the prompt, the
first without a value, as OpenAI's echo gives them) and a /v1/models listing (always healthy).
Set `mode` (one of MODES) from any thread, or GET /control/mode/NAME; the next request gets it.

The bad ways: message text that is a list or an int (on /completions: the choice's text and
every echoed token), a prompt token count that is a string, a lone surrogate sent as the JSON
escape `\\ud800`, log-probabilities that are NaN, -Infinity or +10 (on /completions the echoed
ones, on chat completions an unasked `logprobs` block), a 100 MB body, a gzip bomb (about
200 KB that inflate to 200 MB), a reply trickled one byte a second (headers included), and
JSON cut in half with status 200.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import threading
import zlib
from collections import Counter
from collections.abc import Iterator
from typing import Any

from verstehen.testing.loop_thread import LoopThreadServer
from verstehen.testing.stub_server import chat_answer, read_request

MODES = ("healthy", "content_list", "content_int", "prompt_tokens_text", "surrogate", "nan",
         "neg_inf", "pos_ten", "huge", "gzip_bomb", "trickle", "truncated")
BAD_MODES = MODES[1:]
BAD_LOGPROB = {"nan": float("nan"), "neg_inf": float("-inf"), "pos_ten": 10.0}
HUGE_BYTES = 100 * 2**20
BOMB_BYTES = 200 * 2**20
CHUNK = 2**18
FILL = "@@fill@@"  # where a huge body's filler goes in its JSON text
SURROGATE = "\ud800"


def completion_answer(payload: dict[str, Any]) -> dict[str, Any]:
    """An echoed /v1/completions reply: one token per character of the prompt, each with a
    negative log-probability derived from the character and its place (the first: null)."""
    prompt = str(payload.get("prompt", ""))
    tokens = list(prompt)
    values: list[float | None] = [None] + [
        -((ord(c) * 31 + i) % 97 + 1) / 50 for i, c in enumerate(tokens[1:], 1)]
    return {
        "id": "hostile-completion", "object": "text_completion", "created": 0,
        "model": payload.get("model", "stub"),
        "choices": [{"index": 0, "text": prompt, "finish_reason": "length",
                     "logprobs": {"tokens": tokens, "token_logprobs": values,
                                  "top_logprobs": None,
                                  "text_offset": list(range(len(tokens)))}}],
        "usage": {"prompt_tokens": len(tokens), "completion_tokens": 0,
                  "total_tokens": len(tokens)},
    }


def models_answer() -> dict[str, Any]:
    """A /v1/models listing of one model of no server kind verstehen knows."""
    return {"object": "list", "data": [{"id": "stub", "object": "model", "owned_by": "stub"}]}


def spoil(reply: dict[str, Any], mode: str) -> dict[str, Any]:
    """The reply with the value `mode` names made bad (a chat or an echoed completion)."""
    choice = reply["choices"][0]
    chat = "message" in choice
    if mode in {"content_list", "content_int"}:
        wrong = ((lambda text: [{"type": "text", "text": text}]) if mode == "content_list"
                 else (lambda text: 42))
        if chat:
            choice["message"]["content"] = wrong(choice["message"]["content"])
        else:
            choice["text"] = wrong(choice["text"])
            choice["logprobs"]["tokens"] = [wrong(t) for t in choice["logprobs"]["tokens"]]
    elif mode == "prompt_tokens_text":
        reply["usage"]["prompt_tokens"] = "abc"
    elif mode == "surrogate":
        if chat:
            choice["message"]["content"] += SURROGATE
        else:  # a generated token after the echo, as a server that generates one sends it
            choice["text"] += SURROGATE
            choice["logprobs"]["tokens"].append(SURROGATE)
            choice["logprobs"]["token_logprobs"].append(-1.0)
    elif mode in BAD_LOGPROB:
        value = BAD_LOGPROB[mode]
        if chat:
            choice["logprobs"] = {"content": [{"token": "echo", "logprob": value,
                                               "bytes": None, "top_logprobs": []}]}
        else:
            values = choice["logprobs"]["token_logprobs"]
            choice["logprobs"]["token_logprobs"] = [values[0]] + [value] * (len(values) - 1)
    return reply


def head(status: int, length: int, extra: str = "", *, close: bool = True) -> bytes:
    """The status line and headers of a JSON reply of `length` bytes (and `extra` headers,
    each ending in CRLF); `close`: the connection closes after it."""
    reason = {200: "OK", 404: "Not Found"}.get(status, "Error")
    closing = "connection: close\r\n" if close else ""
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n{extra}"
            f"content-length: {length}\r\n{closing}\r\n").encode()


def filled(reply: dict[str, Any]) -> tuple[bytes, bytes]:
    """The JSON text of `reply` around its text field, which a filler is to replace."""
    choice = reply["choices"][0]
    if "message" in choice:
        choice["message"]["content"] = FILL
    else:
        choice["text"] = FILL
    before, after = json.dumps(reply).split(FILL)
    return before.encode(), after.encode()


def filler(size: int) -> Iterator[bytes]:
    """`size` bytes of "a", in chunks."""
    for start in range(0, size, CHUNK):
        yield b"a" * min(CHUNK, size - start)


@functools.cache
def gzip_bomb(kind: str, size: int = BOMB_BYTES) -> bytes:
    """A chat or completions reply (`kind`) with a text of `size` bytes, gzip-compressed
    (level 9: about 1/1000 the size; 200 MB take 0.6 s, so each is made once)."""
    reply = (chat_answer({"messages": [{"role": "user", "content": "bomb"}]}) if kind == "chat"
             else completion_answer({"prompt": "bomb"}))
    before, after = filled(reply)
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # wbits 31: a gzip header and trailer
    parts = [packer.compress(before), *(packer.compress(c) for c in filler(size)),
             packer.compress(after), packer.flush()]
    return b"".join(parts)


class HostileServer(LoopThreadServer):
    """The stub on 127.0.0.1 (a context manager: its own thread and event loop); `mode` says
    how it answers, `requests` counts what it was asked per path ("chat", "completions",
    "models", "other"). `huge_bytes`, `bomb_bytes` and `trickle_interval` (seconds between
    bytes) size the bad replies."""

    name = "hostile stub server"

    def __init__(self, mode: str = "healthy", *, huge_bytes: int = HUGE_BYTES,
                 bomb_bytes: int = BOMB_BYTES, trickle_interval: float = 1.0) -> None:
        super().__init__()
        self.mode = check_mode(mode)
        self.huge_bytes, self.bomb_bytes = huge_bytes, bomb_bytes
        self.trickle_interval = trickle_interval
        self.requests = Counter[str]()
        self.port = 0
        self._writers: set[asyncio.StreamWriter] = set()

    @property
    def url(self) -> str:
        """The base URL (…/v1)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def set_mode(self, mode: str) -> None:
        """Answer every request from now on in this way (any thread)."""
        self.mode = check_mode(mode)

    async def _start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0, backlog=1024)
        self.port = self._server.sockets[0].getsockname()[1]

    def _stop_serving(self) -> None:
        self._server.close()
        for writer in self._writers:
            writer.transport.abort()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            while (request := await read_request(reader)) is not None:
                method, path, body = request
                if not await self._answer(writer, method, path, body):
                    break
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client gave up (as it should on a huge or trickled reply)
        finally:
            self._writers.discard(writer)
            writer.transport.abort()

    async def _answer(self, writer: asyncio.StreamWriter, method: str, path: str,
                      body: bytes) -> bool:
        """Write one reply; False when the connection is to close after it."""
        if "/control/mode/" in path:
            try:
                self.set_mode(path.rsplit("/", 1)[1])
            except ValueError as exc:
                return await self._send(writer, 404, {"error": {"message": str(exc)}})
            return await self._send(writer, 200, {"mode": self.mode})
        payload: dict[str, object] = json.loads(body) if body else {}  # what a client sent
        if path.endswith("/models"):
            self.requests["models"] += 1
            return await self._send(writer, 200, models_answer())
        if method == "POST" and path.endswith("/chat/completions"):
            self.requests["chat"] += 1
            reply = chat_answer(payload)
        elif method == "POST" and path.endswith("/completions"):
            self.requests["completions"] += 1
            reply = completion_answer(payload)
        else:
            self.requests["other"] += 1
            return await self._send(writer, 404, {"error": {"message": f"no route {path}"}})
        mode = self.mode
        if mode == "huge":
            return await self._send_huge(writer, reply)
        if mode == "gzip_bomb":
            kind = "chat" if "message" in reply["choices"][0] else "completions"
            bomb = await asyncio.to_thread(gzip_bomb, kind, self.bomb_bytes)
            writer.write(head(200, len(bomb), "content-encoding: gzip\r\n") + bomb)
            await writer.drain()
            return False
        if mode == "trickle":
            return await self._trickle(writer, reply)
        if mode == "truncated":
            text = json.dumps(reply).encode()
            cut = text[: len(text) // 2]
            writer.write(head(200, len(cut)) + cut)
            await writer.drain()
            return False
        return await self._send(writer, 200, spoil(reply, mode))

    async def _send(self, writer: asyncio.StreamWriter, status: int,
                    payload: dict[str, Any]) -> bool:
        text = json.dumps(payload).encode()  # NaN and lone surrogates as JSON writes them
        writer.write(head(status, len(text), close=False) + text)
        await writer.drain()
        return True

    async def _send_huge(self, writer: asyncio.StreamWriter, reply: dict[str, Any]) -> bool:
        before, after = filled(reply)
        writer.write(head(200, len(before) + self.huge_bytes + len(after)) + before)
        for chunk in filler(self.huge_bytes):
            if writer.is_closing():
                return False
            writer.write(chunk)
            await writer.drain()
        writer.write(after)
        await writer.drain()
        return False

    async def _trickle(self, writer: asyncio.StreamWriter, reply: dict[str, Any]) -> bool:
        text = json.dumps(reply).encode()
        data = head(200, len(text)) + text
        for i in range(len(data)):
            if writer.is_closing():
                return False
            writer.write(data[i:i + 1])
            await writer.drain()
            await asyncio.sleep(self.trickle_interval)
        return False


def check_mode(mode: str) -> str:
    """`mode` when it is one of MODES; ValueError naming them otherwise."""
    if mode not in MODES:
        raise ValueError(f"mode {mode!r} is not one of {', '.join(MODES)}")
    return mode


def main() -> None:
    """python -m verstehen.testing.hostile_server [--mode M]: serve until interrupted."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mode", default="healthy", choices=MODES)
    args = parser.parse_args()
    with HostileServer(args.mode) as server:
        print(f"serving {server.url} ({server.mode}); GET /control/mode/NAME switches",
              flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
