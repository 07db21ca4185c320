"""A run folder is data, never instructions (issue 29, item 1): `--resume` takes where calls go
and with which key (--base-url, --judge-base-url, --api-key-env, a NAME@URL model) and the cache
only from the command typed now. A folder whose run.json names a server, a key variable or a
cache the typed command does not repeat is refused in one line that shows it, before any
connection is opened; a recording server on 127.0.0.1 must see no connection and no key, with
GITHUB_TOKEN and OPENAI_API_KEY set."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from verstehen.cli.main import build_parser
from verstehen.cli.resume import DESTINATIONS, expand_resume
from verstehen.engine.store.naming import TYPED_AGAIN
from verstehen.testing.loop_thread import LocalHttpServer
from verstehen.testing.stub_server import chat_answer, response

from conftest import cli_error, run_cli

TOKEN, OPENAI_KEY = "ghp_" + "S3cret" * 6, "sk-" + "Pr1vate" * 6
CERTIFY = ["certify", "--model", "openai/stub", "--scope", "arithmetic", "--questions", "8",
           "--rephrase", "2", "--pg", "0.5", "--rid", "0.2", "--no-progress"]


class Recorder(LocalHttpServer):
    """An OpenAI-compatible stub on 127.0.0.1 that records every connection and request, with
    its Authorization header."""

    name = "the recording server"

    def __init__(self) -> None:
        super().__init__()
        self.connections = 0
        self.requests: list[str] = []
        self.authorizations: list[str] = []

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while head := await reader.readuntil(b"\r\n\r\n"):
                lines = head.decode("latin-1").split("\r\n")
                headers = {k.strip().lower(): v.strip() for k, _, v in
                           (line.partition(":") for line in lines[1:] if line)}
                body = await reader.readexactly(int(headers.get("content-length", 0)))
                self.requests.append(lines[0])
                if "authorization" in headers:
                    self.authorizations.append(headers["authorization"])
                if lines[0].startswith("POST") and "/chat/completions" in lines[0]:
                    writer.write(response(200, chat_answer(json.loads(body))))
                else:
                    writer.write(response(404, {"error": {"message": "no route"}}))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    def saw_nothing(self) -> bool:
        """True when no connection was opened to it (so no request and no key either)."""
        return self.connections == 0 and not self.requests and not self.authorizations


@pytest.fixture
def maker() -> Iterator[Recorder]:
    """The server a run folder was made against (its own, up for the whole test)."""
    with Recorder() as server:
        yield server


@pytest.fixture
def made_run(cli, cli_env, maker) -> Path:
    """A finished certify run folder, made against `maker`."""
    done = cli([*CERTIFY, "--base-url", maker.url])
    assert done.returncode == 0, done.stderr
    [run] = Path(cli_env["VERSTEHEN_RUNS_DIR"]).iterdir()
    maker.requests.clear()
    maker.authorizations.clear()
    return run


@pytest.fixture
def keys(monkeypatch) -> None:
    """The keys a hostile run folder would like sent to its server."""
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)


def edit_run(run: Path, **changes: object) -> None:
    """Change run.json as someone handing the folder over could."""
    info = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**info, **changes}))


def with_argv(run: Path, tail: list[str]) -> None:
    """run.json's command line: the run's own words and settings (less any --base-url,
    --cache), then `tail`; its config's base_url made to match, as whoever edits the file
    would (else the resume would stop on the config, which the folder holds as well)."""
    info = json.loads((run / "run.json").read_text())
    argv = info["argv"]
    drop = {i + d for i, t in enumerate(argv) if t in ("--base-url", "--cache") for d in (0, 1)}
    urls = [v for i, v in enumerate(tail) if i and tail[i - 1].startswith("--base")]
    urls += [t.split("=", 1)[1] for t in tail if t.startswith("--base=")]
    edit_run(run, argv=[t for i, t in enumerate(argv) if i not in drop] + tail,
             config={**info["config"], "base_url": urls[0] if urls else None})


def test_a_folder_naming_a_server_and_a_key_is_refused_and_nothing_is_sent(
        cli, made_run, keys, cache_path):
    """The issue's case: run.json carries --base-url of a stranger's server and --api-key-env
    GITHUB_TOKEN. Resuming used to send every call there with `Bearer ghp_...`; now each
    missing flag is refused in one line showing what to type, and no connection is made."""
    cache_path.unlink()  # a folder from elsewhere: none of its calls is in this user's cache
    with Recorder() as stranger:
        with_argv(made_run, ["--base-url", stranger.url, "--api-key-env", "GITHUB_TOKEN"])
        line = cli_error(cli, ["certify", "--resume", str(made_run)],
                         f"was made with --base-url {stranger.url}",
                         "a run folder cannot choose where calls go",
                         f"add --base-url {stranger.url} to resume against it")
        assert made_run.name in line
        # the server typed again, the key variable not: refused on the key
        cli_error(cli, ["certify", "--resume", str(made_run), "--base-url", stranger.url],
                  "was made with --api-key-env GITHUB_TOKEN",
                  "add --api-key-env GITHUB_TOKEN to resume against it")
        # another server or key variable typed: refused as well
        cli_error(cli, ["certify", "--resume", str(made_run), "--base-url",
                        "http://127.0.0.1:9/v1", "--api-key-env", "GITHUB_TOKEN"],
                  f"add --base-url {stranger.url}")
        cli_error(cli, ["certify", "--resume", str(made_run), "--base-url", stranger.url,
                        "--api-key-env", "OPENAI_API_KEY"], "add --api-key-env GITHUB_TOKEN")
        assert stranger.saw_nothing()


def test_abbreviated_and_equals_forms_are_read_as_argparse_reads_them(cli, made_run, keys):
    """argparse takes `--base=URL` and `--api-key NAME` for the full flags: so does the
    check (a folder cannot slip its server past it in a shorter spelling)."""
    with Recorder() as stranger:
        with_argv(made_run, [f"--base={stranger.url}", "--api-key", "GITHUB_TOKEN"])
        cli_error(cli, ["certify", "--resume", str(made_run)],
                  f"add --base-url {stranger.url} to resume against it")
        cli_error(cli, ["certify", "--resume", str(made_run), "--base-url", stranger.url],
                  "add --api-key-env GITHUB_TOKEN")
        assert stranger.saw_nothing()


def test_a_resume_cannot_add_a_server_or_key_the_run_was_made_without(cli, made_run, keys):
    """Typing a server or key variable the run did not use is refused too (it would change
    where the run's calls go halfway)."""
    with Recorder() as other:
        with_argv(made_run, [])
        cli_error(cli, ["certify", "--resume", str(made_run), "--base-url", other.url],
                  "was made without --base-url", "start a new run")
        cli_error(cli, ["certify", "--resume", str(made_run), "--api-key-env", "GITHUB_TOKEN"],
                  "was made without --api-key-env")
        assert other.saw_nothing()


def test_the_maker_confirming_the_server_goes_on(cli, made_run, maker, keys, cache_path):
    """Typed again with the same values, the run goes on (the server and key variable are
    the user's own choice now): it finishes, and the key goes where it was typed."""
    with_argv(made_run, ["--base-url", maker.url, "--api-key-env", "GITHUB_TOKEN"])
    cache_path.unlink()  # every call is asked again, so the key is seen to go
    done = cli(["certify", "--resume", str(made_run), "--base-url", maker.url,
                "--api-key-env", "GITHUB_TOKEN"])
    assert done.returncode == 0, done.stderr
    assert json.loads((made_run / "run.json").read_text())["status"] == "done"
    assert maker.authorizations and set(maker.authorizations) == {f"Bearer {TOKEN}"}


def test_a_folder_cannot_choose_the_cache(cli, made_run, maker, tmp_path):
    """A --cache in run.json's command line, or a cache path of its own in run.json, is
    refused unless typed; a typed --cache is used instead of the run's (a cache is the user's
    own file), and the folder's file is never made."""
    elsewhere = tmp_path / "elsewhere" / "calls.sqlite"
    with_argv(made_run, ["--cache", str(elsewhere)])
    cli_error(cli, ["certify", "--resume", str(made_run)],
              f"was made with --cache {elsewhere}", "cannot choose which cache file",
              f"add --cache {elsewhere} to resume with it")
    with_argv(made_run, [])
    edit_run(made_run, cache=str(elsewhere))  # the cache path run.json keeps beside argv
    cli_error(cli, ["certify", "--resume", str(made_run)],
              f"was made with --cache {elsewhere}")
    assert not elsewhere.parent.exists()

    mine = tmp_path / "mine.sqlite"
    with_argv(made_run, ["--cache", str(elsewhere), "--base-url", maker.url])
    done = cli(["certify", "--resume", str(made_run), "--base-url", maker.url,
                "--cache", str(mine)])
    assert done.returncode == 0, done.stderr
    assert maker.requests  # a fresh cache: the calls were asked again
    assert mine.is_file() and not elsewhere.parent.exists()


def test_a_served_model_and_a_judge_server_are_destinations_too(tmp_path, keys):
    """`imagine answer --model NAME@URL` and `--judge-base-url` name servers as --base-url
    does: refused unless typed; typed, the model keeps its place among the run's models."""
    with Recorder() as stranger:
        served = f"openai/m@{stranger.url}"
        answer = ["imagine", "answer", "--questions", "Q", "--model", "local/a", "--model",
                  served, "--model", "local/b"]
        run = fake_run(tmp_path / "answer", "imagine-answer", answer)
        with pytest.raises(Exception, match=f"made with the model {served}.*add --model "):
            expand_resume(["imagine", "answer", "--resume", str(run)], build_parser())
        # its input, which this hand-made run.json holds no content hash of, typed again too
        argv = expand_resume(["imagine", "answer", "--resume", str(run), "--model", served,
                              "--questions", "Q"], build_parser())
        # the served model once, in the run's own order
        assert argv == [*answer[:2], *answer[4:], "--questions", "Q", "--resume", str(run)]
        judge = ["potemkin", "run", "--judge", "openai/j", "--judge-base-url", stranger.url]
        run = fake_run(tmp_path / "judge", "potemkin-run", judge)
        with pytest.raises(Exception, match=f"--judge-base-url {stranger.url}; a run folder "
                                            "cannot choose where the judge's calls go"):
            expand_resume(["potemkin", "run", "--resume", str(run)], build_parser())
        assert stranger.saw_nothing()


def test_an_endpoints_file_is_not_read_before_it_is_typed(tmp_path, cli_env):
    """`--base-url @FILE` in run.json is refused without opening FILE (a FIFO there would
    hang the resume for ever if it were read)."""
    fifo = tmp_path / "endpoints"
    os.mkfifo(fifo)
    run = fake_run(tmp_path / "run", "certify", ["certify", "--base-url", f"@{fifo}"])
    done = run_cli(["certify", "--resume", str(run)], cli_env, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert f"add --base-url @{fifo} to resume against it" in done.stderr


def test_what_is_shown_hides_credentials_and_escapes_control_characters(tmp_path):
    """The value a refusal shows is one to type: a URL's password is left out, and a
    terminal escape sequence in run.json is printed escaped, not sent to the terminal."""
    url = "http://user:hunter2@127.0.0.1:9/v1\x1b]0;owned\x07"
    run = fake_run(tmp_path / "run", "certify", ["certify", "--base-url", url])
    with pytest.raises(Exception) as caught:
        expand_resume(["certify", "--resume", str(run)], build_parser())
    assert "hunter2" not in str(caught.value) and "\x1b" not in str(caught.value)
    assert "127.0.0.1:9/v1\\x1b]0;owned\\x07" in str(caught.value)


def test_a_command_line_of_another_command_is_refused(tmp_path):
    """run.json says certify but its command line is another command's: refused (it would
    have been run as that command)."""
    run = fake_run(tmp_path / "run", "certify", ["ask", "openai/x", "hello"])
    with pytest.raises(Exception, match="its command line is not one of `verstehen certify`"):
        expand_resume(["certify", "--resume", str(run)], build_parser())


def test_the_flags_a_resume_must_repeat_are_the_ones_the_hint_shows():
    """The line printed on Ctrl-C (RunStore.resume_command) repeats the flags the resume
    checks: the same list in both places."""
    assert set(TYPED_AGAIN) == {*DESTINATIONS, "--cache"}


def fake_run(folder: Path, command: str, argv: list[str]) -> Path:
    """A run folder holding only a run.json (all that a resume reads before its checks)."""
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps({"command": command, "argv": argv,
                                                 "config": {}}))
    return folder
