"""Keys go only where they belong and never into a run's files; a silent server times out.

One recording OpenAI-compatible server per test (ThreadingHTTPServer on 127.0.0.1) answers
chat completions, remembers each request's headers, and can answer 401 with a message that
echoes the key it received, as some servers do.
"""

from __future__ import annotations

import argparse
import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from verstehen.cli.main import build_parser
from verstehen.methods import registry
from verstehen.models import get_model
from verstehen.models.remote import DEFAULT_TIMEOUT, public_url, redact, without_credentials

from conftest import Cli, cli_error

KEY = "sk-proj-Zq81kLmN0pQrStUv"


class Recorder:
    """A chat server that keeps every request's headers; `refuse` makes it answer 401."""

    def __init__(self) -> None:
        self.headers: list[dict[str, str]] = []
        self.refuse = False
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", 0)))
                recorder.headers.append({k.lower(): v for k, v in self.headers.items()})
                if recorder.refuse:
                    sent = self.headers.get("authorization", "").removeprefix("Bearer ")
                    body = {"error": {"message": f"Incorrect API key provided: {sent}. "
                                                 f"Retry with key {sent[:10]}***",
                                      "type": "invalid_request_error"}}
                    self._send(401, body)
                    return
                self._send(200, {"id": "x", "object": "chat.completion", "created": 0,
                                 "model": "m", "choices": [{
                                     "index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": "42"}}],
                                 "usage": {"prompt_tokens": 1, "completion_tokens": 1,
                                           "total_tokens": 2}})

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    """A running recording server."""
    server = Recorder()
    yield server
    server.httpd.shutdown()
    server.httpd.server_close()


def bearer(headers: dict[str, str]) -> str:
    """The token of an Authorization header."""
    return headers.get("authorization", "").removeprefix("Bearer ")


def test_openai_key_is_not_sent_to_another_server(cli: Cli, recorder: Recorder,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """OPENAI_API_KEY is for api.openai.com: a --base-url server gets no key by default."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    done = cli(["ask", "openai/m", "hi", "--base-url", recorder.url])
    assert done.returncode == 0, done.stderr
    assert len(recorder.headers) == 1
    assert KEY not in json.dumps(recorder.headers)


def test_api_key_env_names_the_servers_key(cli: Cli, recorder: Recorder,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """--api-key-env NAME sends that variable's value to the server."""
    monkeypatch.setenv("MY_SERVER_KEY", "server-key-1234")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    done = cli(["ask", "openai/m", "hi", "--base-url", recorder.url,
                "--api-key-env", "MY_SERVER_KEY"])
    assert done.returncode == 0, done.stderr
    assert bearer(recorder.headers[0]) == "server-key-1234"


def test_api_key_env_unset_or_a_key_is_one_line(cli: Cli, recorder: Recorder,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A variable that is not set, or a key given where a name belongs, stops before a call."""
    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    cli_error(cli, ["ask", "openai/m", "hi", "--base-url", recorder.url,
                    "--api-key-env", "NOT_SET_ANYWHERE"], "NOT_SET_ANYWHERE", "not set")
    line = cli_error(cli, ["ask", "openai/m", "hi", "--api-key-env", "sk-abc-123"],
                     "--api-key-env", "variable name")
    assert "sk-abc-123" in line  # it is only printed, so the user sees what was wrong
    assert recorder.headers == []


def test_official_host_still_needs_its_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a base URL the provider's own variable is required and used."""
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    model = get_model("openai/gpt-4o-mini")
    assert model._key == KEY  # type: ignore[attr-defined]


def test_echoed_key_never_reaches_the_records(cli: Cli, recorder: Recorder, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A 401 whose message echoes the key is stored with the key hidden, whole or in part."""
    monkeypatch.setenv("MY_SERVER_KEY", KEY)
    recorder.refuse = True
    done = cli(["certify", "--model", "openai/m", "--scope", "arithmetic", "--questions", "8",
                "--pg", "0.6", "--rid", "0.4",
                "--base-url", recorder.url, "--api-key-env", "MY_SERVER_KEY",
                "--no-progress"])
    assert done.returncode != 0
    assert recorder.headers and bearer(recorder.headers[0]) == KEY
    run = next((tmp_path / "runs").iterdir())
    stored = "".join(p.read_text() for p in run.iterdir() if p.is_file())
    assert "HTTP 401" in stored and "[key hidden]" in stored
    assert KEY not in stored and KEY[:10] not in stored
    assert KEY not in done.stdout + done.stderr


def test_url_credentials_are_refused_and_never_sent_or_stored(cli: Cli, recorder: Recorder,
                                                               tmp_path: Path) -> None:
    """user:password in a base URL is refused in one line before any request (before issue
    43 it went as Basic auth in place of the key, and a 401 echoing the header stored
    base64(user:password) in the run's files)."""
    secret_url = f"http://alice:hunter2pass@127.0.0.1:{recorder.port}/v1"
    line = cli_error(cli, ["certify", "--model", "openai/m", "--scope", "arithmetic",
                           "--questions", "8", "--pg", "0.6", "--rid", "0.4",
                           "--base-url", secret_url, "--no-progress"],
                     "user name or password", "--api-key-env")
    assert "hunter2pass" not in line and recorder.headers == []
    runs = tmp_path / "runs"
    stored = "".join(p.read_text(errors="replace") for p in runs.rglob("*") if p.is_file()) \
        if runs.exists() else ""
    assert "hunter2pass" not in stored and "YWxpY2U6aHVudGVyMnBhc3M" not in stored


def test_redaction_rules() -> None:
    """The key, any 8 of its characters in a row, and URL credentials are hidden."""
    text = f"bad key {KEY}; try {KEY[:9]}*** at http://u:p@h:1/v1 or {KEY[-8:]}"
    hidden = redact(text, KEY)
    assert KEY[:8] not in hidden and KEY[-8:] not in hidden and "u:p@" not in hidden
    assert hidden.count("[key hidden]") == 3 and "http://h:1/v1" in hidden
    assert redact("short key abc here", "abc") == "short key [key hidden] here"
    assert redact("nothing secret", None) == "nothing secret"
    assert public_url("https://h.example/v1") == "https://h.example/v1"
    assert without_credentials({"a": ["x http://k:s@h/v1 y"]}) == {"a": ["x http://h/v1 y"]}


@pytest.fixture
def silent_url() -> Iterator[str]:
    """A server that accepts connections and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def test_timeout_flag_bounds_a_silent_server(cli: Cli, silent_url: str) -> None:
    """--timeout 0.5 with 2 attempts gives up in seconds, not 2 x 120 s."""
    started = time.monotonic()
    done = cli(["ask", "openai/m", "hi", "--base-url", silent_url, "--timeout", "0.5",
                "--max-attempts", "2"])
    seconds = time.monotonic() - started
    assert done.returncode == 1
    assert "gave up after 2 attempts" in done.stderr and "Timeout" in done.stderr
    assert seconds < 10


def test_timeout_default_and_refusals(cli: Cli) -> None:
    """Remote models wait 60 s by default; 0, negative, nan and inf are refused while parsing."""
    model = get_model("openai/m", base_url="http://127.0.0.1:9/v1")
    assert model._client.timeout == DEFAULT_TIMEOUT == 60  # type: ignore[attr-defined]
    for bad in ("0", "-1", "nan", "inf"):
        cli_error(cli, ["ask", "openai/m", "hi", "--timeout", bad], "--timeout")


def test_text_file_as_gguf_is_one_line(cli: Cli, tmp_path: Path) -> None:
    """A file that is not GGUF is refused before llama.cpp sees it (exit 2, not 1)."""
    fake = tmp_path / "notes.gguf"
    fake.write_text("these are notes, not weights\n")
    cli_error(cli, ["ask", f"local/{fake}", "hi"], "not a GGUF file")
    truncated = tmp_path / "cut.gguf"
    truncated.write_bytes(b"GGUF\x03\x00\x00\x00" + b"\x00" * 40)
    cli_error(cli, ["ask", f"local/{truncated}", "hi"], "cannot load", "cut.gguf")


def _model_commands() -> list[list[str]]:
    """Every run-making command that takes --model and needs no other input (from the
    registry's declarations), with an unknown provider; and the audit's judge."""
    lines = []
    for words in (kind.words for kind in registry.run_kinds()):
        parser: argparse.ArgumentParser = build_parser()
        for word in words:
            [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
            parser = sub.choices[word]
        # a command that needs an input read first (imagine answer's questions) is left out
        if (any("--model" in a.option_strings for a in parser._actions)
                and not any(a.required for a in parser._actions)):
            lines.append([*words, "--model", "nope/x"])
    return [*lines, ["audit", "--model", "openai/m", "--judge", "nope/x"]]


@pytest.mark.parametrize("args", _model_commands(), ids=" ".join)
def test_bad_model_name_prints_nothing_else(cli: Cli, args: list[str]) -> None:
    """An unknown provider is one line, with no progress line before it."""
    cli_error(cli, args, "nope")


def test_missing_key_prints_no_progress_line(cli: Cli) -> None:
    """A model that fails to open (no key) leaves no empty progress line behind."""
    cli_error(cli, ["certify", "--model", "openai/m", "--scope", "arithmetic",
                    "--questions", "8", "--pg", "0.6", "--rid", "0.4"],
              "OPENAI_API_KEY")
