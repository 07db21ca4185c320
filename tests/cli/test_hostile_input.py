"""Issue 29 at the command line: what a user's input, a model's reply or the OS can throw at it.

- Item 5: a JSONL prompt holding a lone surrogate and a non-UTF-8 argument to `ask` are
  refused in one line naming the line or argument (exit 2), before anything is called.
- Item 12: a NUL byte in a .txt prompts file is named as such; a reply, a server's error and a
  one-line error are printed with their control characters escaped.
- Item 7: disk full and out of descriptors end in one line saying how to go on (exit 1), and
  the run resumes; once for real, under a file-size limit (RLIMIT_FSIZE).
- Item 9: a prompts file is streamed: the batch holds a bounded window of calls.
"""

from __future__ import annotations

import errno
import http.server
import io
import json
import resource
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import verstehen.cli.batch as batch_module
from verstehen.engine.progress import PlainProgress
from verstehen.engine.store import RunStore
from verstehen.text.terminal import terminal_line, terminal_text

from conftest import PYTHON, Cli, cli_error

# what a hostile reply may hold: set the window title, clear the screen, go back to the start
# of the line and overwrite it, a backspace, the C1 control sequence introducer
HOSTILE = "\x1b]0;owned\x07\x1b[2J\rfake line\x08\x9b"
# the same, escaped as terminal.py says (worked out by hand: \xNN for each control, \r named)
HOSTILE_ESCAPED = "\\x1b]0;owned\\x07\\x1b[2J\\rfake line\\x08\\x9b"


class Recording:
    """An OpenAI-compatible chat server in a thread: answers `text` (status 200) or an error
    (status 400 with `text` as its message), and counts the requests it got."""

    def __init__(self, text: str = "fine", status: int = 200) -> None:
        self.requests = 0
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                asked = json.loads(self.rfile.read(length))
                outer.requests += 1
                if status == 200:
                    reply = {"id": "r", "object": "chat.completion", "created": 0,
                             "model": asked.get("model", "x"),
                             "choices": [{"index": 0, "finish_reason": "stop", "message": {
                                 "role": "assistant", "content": text}}],
                             "usage": {"prompt_tokens": 1, "completion_tokens": 1,
                                       "total_tokens": 2}}
                else:
                    reply = {"error": {"message": text, "type": "invalid_request_error"}}
                body = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                """Quiet."""

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_port}/v1"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        """Shut the server down."""
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def recording() -> Iterator[type[Recording]]:
    """A factory of recording servers, stopped when the test ends."""
    started: list[Recording] = []

    def start(text: str = "fine", status: int = 200) -> Recording:
        server = Recording(text, status)
        started.append(server)
        return server

    yield start  # type: ignore[misc]
    for server in started:
        server.stop()


# ---------------------------------------------------------------- item 5: surrogates in input


@pytest.mark.parametrize(("row", "what"), [
    ('{"prompt": "bad \\ud800"}', "the prompt is not text: a lone surrogate \\ud800"),
    ('{"messages": [{"role": "user", "content": "x\\udfff"}]}', "the message is not text"),
    ('{"id": "a\\ud83d", "prompt": "fine"}', "the id is not text"),
])
def test_a_jsonl_prompt_with_a_lone_surrogate_is_refused_naming_its_line(
        cli: Cli, tmp_path: Path, recording, row: str, what: str) -> None:
    """Before: the batch called the server, and the cache write of the reply failed."""
    server = recording()
    path = tmp_path / "p.jsonl"
    path.write_text('{"prompt": "a good one"}\n' + row + "\n")
    cli_error(cli, ["batch", "openai/x", str(path), "--base-url", server.url, "--no-progress"],
              f"{path}:2: {what}")
    assert server.requests == 0
    assert not (tmp_path / "runs").exists()


def test_a_pair_of_surrogates_is_one_character_and_fine(tmp_path: Path) -> None:
    """\\ud83d\\ude00 is U+1F600 written as its UTF-16 pair: JSON joins it, nothing to refuse."""
    path = tmp_path / "p.jsonl"
    path.write_text('{"prompt": "smile \\ud83d\\ude00"}\n')
    assert batch_module.load_prompts(path)[0].messages[0]["content"] == "smile \U0001f600"


@pytest.mark.parametrize(("args", "needle"), [
    (["caf\udce9"], "argument PROMPT is not UTF-8 text: byte 0xe9 at character 4"),
    (["fine", "--system", "\udcff"], "argument --system is not UTF-8 text: byte 0xff at "
     "character 1"),
])
def test_a_non_utf8_argument_to_ask_is_refused(cli: Cli, recording, args: list[str],
                                               needle: str) -> None:
    """Python gives a non-UTF-8 byte of argv as U+DC80..U+DCFF (surrogateescape, PEP 383):
    0xe9 arrives as U+DCE9. Before: it was sent, and the reply printed."""
    server = recording()
    cli_error(cli, ["ask", "openai/x", *args, "--base-url", server.url], needle)
    assert server.requests == 0


def test_a_non_utf8_byte_in_a_real_argv(cli_env: dict[str, str], recording) -> None:
    """The same through a real process, given the latin-1 bytes of "café"."""
    server = recording()
    done = subprocess.run([PYTHON, "-m", "verstehen", "ask", "openai/x", b"caf\xe9",
                           "--base-url", server.url], env={**cli_env, "LC_ALL": "C.UTF-8"},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip() == ("verstehen: error: argument PROMPT is not UTF-8 text: byte "
                                   "0xe9 at character 4 is not UTF-8; pass it in UTF-8 (a "
                                   "UTF-8 locale, or a file converted with iconv)")
    assert server.requests == 0


# ---------------------------------------------------------------- item 12: NUL, escapes


def test_a_nul_byte_in_a_txt_prompts_file_is_named_as_such(cli: Cli, tmp_path: Path) -> None:
    """"hi\\0\\n": the NUL is byte 2 (h i before it), on line 1. Before, a NUL in one byte of
    two (h \\0 | i \\n) in so short a file read as UTF-16."""
    path = tmp_path / "p.txt"
    path.write_bytes(b"hi\x00\n")
    line = cli_error(cli, ["batch", "openai/x", str(path), "--no-progress"],
                     "a NUL byte at line 1, byte offset 2")
    assert "UTF-16" not in line


def test_the_reply_ask_prints_has_its_control_characters_escaped(cli: Cli, recording) -> None:
    """Newline and tab stay (a reply has lines); nothing can set the title or clear the screen."""
    server = recording(HOSTILE + "\nnext\tcolumn")
    done = cli(["ask", "openai/x", "hello", "--base-url", server.url])
    assert done.returncode == 0, done.stderr
    assert done.stdout == HOSTILE_ESCAPED + "\nnext\tcolumn\n"


def test_a_server_error_is_one_escaped_line(cli: Cli, recording) -> None:
    """A 400 whose message would clear the screen and fake a line of ours."""
    server = recording(HOSTILE + "\nverstehen: all calls succeeded", status=400)
    done = cli(["ask", "openai/x", "hello", "--base-url", server.url, "--max-attempts", "1"])
    assert done.returncode == 1 and "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert not any(c in line for c in "\x1b\x07\r\x08\x9b")


def test_a_one_line_error_quoting_a_hostile_file_name_stays_one_line(cli: Cli,
                                                                     tmp_path: Path) -> None:
    """A file name may hold ESC, BEL and a newline; the error that names it stays one line."""
    path = tmp_path / "evil\x1b]0;t\x07\nverstehen: done.txt"
    path.write_text("")
    line = cli_error(cli, ["batch", "openai/x", str(path), "--no-progress"], "holds no prompts")
    assert "evil\\x1b]0;t\\x07\\nverstehen: done.txt" in line


def test_terminal_escapes_by_hand() -> None:
    """Each control by its escape; DEL and C1 too; printable text (accents, CJK) untouched; a
    lone surrogate, which no terminal can print, escaped."""
    assert terminal_text("a\x00b\x7fc\x85d\ttab\nline") == "a\\x00b\\x7fc\\x85d\ttab\nline"
    assert terminal_line("é 漢字\ttab\nline\ud800") == "é 漢字\\ttab\\nline\\ud800"


def test_a_progress_line_escapes_its_label() -> None:
    stream = io.StringIO()
    progress = PlainProgress("batch openai/\x1b[2Jx", stream=stream, every=0.0)
    progress.add_total(1)
    progress.advance(cached=False, error=False)
    assert stream.getvalue().startswith("batch openai/\\x1b[2Jx: 1/1 done")


# ---------------------------------------------------------------- item 7: out of disk or files


def _failing_append(monkeypatch: pytest.MonkeyPatch, exc: BaseException, after: int) -> None:
    """RunStore.append raises `exc` from its `after`+1-th call on."""
    real = RunStore.append
    calls = {"n": 0}

    def append(self: RunStore, record: dict) -> None:
        calls["n"] += 1
        if calls["n"] > after:
            raise exc
        real(self, record)

    monkeypatch.setattr(RunStore, "append", append)


def _only_run(tmp_path: Path) -> Path:
    [run] = (tmp_path / "runs").iterdir()
    return run


@pytest.mark.parametrize(("exc", "said"), [
    (OSError(errno.ENOSPC, "No space left on device", "RECORDS"),
     "disk full writing RECORDS: free space, then resume: "),
    (OSError(errno.EMFILE, "Too many open files"),
     "too many open files (ulimit -n): raise `ulimit -n` or lower --max-connections, then "
     "resume: "),
    (RuntimeError("while writing"), "file too large for the file-size limit (ulimit -f): raise "
     "the limit, then resume: "),
])
def test_out_of_disk_or_files_is_one_line_and_the_run_resumes(
        cli: Cli, tmp_path: Path, recording, monkeypatch: pytest.MonkeyPatch,
        exc: BaseException, said: str) -> None:
    """Before: a traceback. The third case is an error caused by EFBIG (`raise ... from`)."""
    if isinstance(exc, RuntimeError):
        exc.__cause__ = OSError(errno.EFBIG, "File too large")
    server = recording()
    prompts = tmp_path / "p.txt"
    prompts.write_text("a\nb\nc\nd\n")
    real_append = RunStore.append
    _failing_append(monkeypatch, exc, after=2)
    done = cli(["batch", "openai/x", str(prompts), "--base-url", server.url, "--no-progress",
                "--max-connections", "1"])
    run = _only_run(tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"verstehen: error: {said}verstehen batch --resume {run}"), last
    assert json.loads((run / "run.json").read_text())["status"] == "failed"

    monkeypatch.setattr(RunStore, "append", real_append)
    again = cli(["batch", "--resume", str(run), "--base-url", server.url, "--no-progress"])
    assert again.returncode == 0, again.stderr
    ids = sorted(r["id"] for r in RunStore(run).records())
    assert ids == ["1", "2", "3", "4"]


def test_another_os_error_is_still_a_bug_with_its_traceback(
        cli: Cli, tmp_path: Path, recording, monkeypatch: pytest.MonkeyPatch) -> None:
    server = recording()
    prompts = tmp_path / "p.txt"
    prompts.write_text("a\n")
    _failing_append(monkeypatch, PermissionError(errno.EACCES, "Permission denied"), after=0)
    with pytest.raises(PermissionError):
        cli(["batch", "openai/x", str(prompts), "--base-url", server.url, "--no-progress"])


def _file_size_limit(limit: int) -> None:
    """In the child before exec: a file-size limit, its signal ignored (write gets EFBIG)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def test_a_real_file_size_limit_is_one_line_and_the_run_resumes(
        cli_env: dict[str, str], tmp_path: Path, recording) -> None:
    """`ulimit -f` in the child: 1,000 prompts of ~110 bytes write more than 100 KB (cache rows
    and records), so some write fails with EFBIG. One line, exit 1; without the limit, the
    resume finishes every prompt."""
    server = recording()
    prompts = tmp_path / "p.txt"
    prompts.write_text("".join(f"prompt {n} " + "x" * 100 + "\n" for n in range(1000)))
    args = [PYTHON, "-m", "verstehen", "batch", "openai/x", str(prompts), "--base-url",
            server.url, "--no-progress"]
    done = subprocess.run(args, env=cli_env, capture_output=True, text=True, timeout=120,
                          preexec_fn=lambda: _file_size_limit(100_000))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    run = _only_run(tmp_path)
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("verstehen: error: file too large for the file-size limit "
                           "(ulimit -f)"), last
    assert f"then resume: verstehen batch --resume {run}" in last
    again = subprocess.run([PYTHON, "-m", "verstehen", "batch", "--resume", str(run),
                            "--base-url", server.url, "--no-progress"], env=cli_env,
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["records"] == 1000
    assert len({r["id"] for r in RunStore(run).records()}) == 1000


# ---------------------------------------------------------------- item 9: streamed prompts


def test_a_batch_holds_a_bounded_window_of_calls(cli: Cli, tmp_path: Path, recording,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """500 prompts on 2 connections: the window is max(4 * 2, 32) = 32 calls under way at
    most (before, every prompt became a task at the start: 500 waited at once)."""
    import verstehen.engine.runner as runner_module

    server = recording()
    prompts = tmp_path / "p.txt"
    prompts.write_text("".join(f"q{n}\n" for n in range(500)))
    under_way = {"now": 0, "most": 0}
    real = runner_module.Runner.generate

    async def counted(self, *args, **kwargs):
        under_way["now"] += 1
        under_way["most"] = max(under_way["most"], under_way["now"])
        try:
            return await real(self, *args, **kwargs)
        finally:
            under_way["now"] -= 1

    monkeypatch.setattr(runner_module.Runner, "generate", counted)
    done = cli(["batch", "openai/x", str(prompts), "--base-url", server.url, "--no-progress",
                "--max-connections", "2"])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["records"] == 500
    assert under_way["most"] == batch_module.WINDOW_MIN
    assert server.requests == 500


def test_a_resumed_batch_skips_what_is_done_while_streaming(cli: Cli, tmp_path: Path,
                                                            recording) -> None:
    """Half the records kept, the other half removed: the resume asks only those (the cache
    is another file, so a call it made twice would show at the server)."""
    server = recording()
    prompts = tmp_path / "p.jsonl"
    prompts.write_text("".join(json.dumps({"id": f"k{n}", "prompt": f"q{n}"}) + "\n"
                               for n in range(100)))
    first = cli(["batch", "openai/x", str(prompts), "--base-url", server.url, "--no-progress"])
    assert first.returncode == 0, first.stderr
    run = _only_run(tmp_path)
    records = (run / "records.jsonl").read_text().splitlines(keepends=True)
    (run / "records.jsonl").write_text("".join(records[:50]))
    before = server.requests
    again = cli(["batch", "--resume", str(run), "--base-url", server.url, "--no-progress",
                 "--cache", str(tmp_path / "other.sqlite")])
    assert again.returncode == 0, again.stderr
    assert "50 calls to make (50 of 100 answers already in the run)" in again.stderr
    assert server.requests - before == 50
    assert sorted(r["id"] for r in RunStore(run).records()) == sorted(f"k{n}" for n in range(100))


def test_a_resume_cannot_be_sent_elsewhere_by_the_folder(cli: Cli, tmp_path: Path,
                                                         recording) -> None:
    """A batch run.json edited to another --base-url: the resume refuses, naming it, and
    nothing is sent to either server (issue 29 item 1, at batch's own --resume)."""
    ours, theirs = recording(), recording()
    prompts = tmp_path / "p.txt"
    prompts.write_text("a\nb\n")
    first = cli(["batch", "openai/x", str(prompts), "--base-url", ours.url, "--no-progress"])
    run = _only_run(tmp_path)
    (run / "records.jsonl").write_text("")
    info = json.loads((run / "run.json").read_text())
    info["config"]["base_url"] = theirs.url
    (run / "run.json").write_text(json.dumps(info))
    sent = ours.requests
    cli_error(cli, ["batch", "--resume", str(run), "--base-url", ours.url, "--no-progress"],
              f"was made with --base-url {theirs.url}; a run folder cannot choose where calls go")
    assert first.returncode == 0 and ours.requests == sent and theirs.requests == 0
