"""Bad input ends with exit 2 and one line on stderr, never a traceback."""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

import verstehen
from verstehen.cli.main import build_parser

from conftest import Cli, cli_error, free_port, run_cli


@pytest.fixture
def listening_url() -> Iterator[str]:
    """A base URL whose port accepts TCP connections (enough for the reachability check)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


@pytest.mark.parametrize(("args", "needle"), [
    (["ask", "foo/bar", "hi"], "foo"),
    (["ask", "nothing", "hi"], "nothing"),
    (["ask", "openai/gpt-4o-mini", "hi"], "OPENAI_API_KEY"),
    (["ask", "anthropic/claude-x", "hi"], "ANTHROPIC_API_KEY"),
    (["ask", "local/smollm2-135m", "hi", "--temperature", "x"], "--temperature"),
    (["certify"], "`verstehen scopes` lists them"),  # where to find a scope (issue 30)
])
def test_bad_model_key_or_flag(cli: Cli, args: list[str], needle: str) -> None:
    """Unknown provider, malformed name, missing keys, a non-number flag."""
    cli_error(cli, args, needle)


def test_unreachable_base_url(cli: Cli) -> None:
    """A base URL nothing listens on is named in the error."""
    url = f"http://127.0.0.1:{free_port()}/v1"
    cli_error(cli, ["ask", "openai/x", "hi", "--base-url", url], url)


@pytest.mark.parametrize("served", ["key", "server"])
def test_an_audit_that_cannot_open_its_model_leaves_no_run_folder(cli: Cli, cli_env, served):
    """A missing key or an unreachable server is refused before the audit's folder is made
    (before: a failed folder that cluttered `verstehen runs`; issue 30)."""
    args = ["audit", "--model", "openai/gpt-4o-mini", "--subject", "arithmetic",
            "--max-questions", "8", "--no-progress"]
    if served == "server":
        url = f"http://127.0.0.1:{free_port()}/v1"
        cli_error(cli, [*args, "--base-url", url], "cannot reach", url)
    else:
        cli_error(cli, args, "OPENAI_API_KEY is not set")
    runs = Path(cli_env["VERSTEHEN_RUNS_DIR"])
    assert not runs.exists() or not any(runs.iterdir())


def test_unwritable_runs_dir(cli: Cli, tmp_path: Path, listening_url: str) -> None:
    """A runs dir under a regular file cannot be created."""
    prompts = tmp_path / "p.txt"
    prompts.write_text("hello\n")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    cli_error(cli, ["batch", "openai/x", str(prompts), "--base-url", listening_url,
                    "--runs-dir", str(blocker / "runs"), "--no-progress"], str(blocker / "runs"))


def test_missing_prompts_file(cli: Cli, tmp_path: Path) -> None:
    """A prompts file that does not exist is named."""
    missing = tmp_path / "nope.txt"
    cli_error(cli, ["batch", "openai/x", str(missing), "--no-progress"], str(missing))


def test_non_json_prompt_line(cli: Cli, tmp_path: Path) -> None:
    """A non-JSON line of a .jsonl prompts file is named as file:line."""
    prompts = tmp_path / "p.jsonl"
    prompts.write_text('{"prompt": "fine"}\n\n{not json}\n')
    cli_error(cli, ["batch", "openai/x", str(prompts), "--no-progress"], f"{prompts}:3")


def test_resume_not_a_run(cli: Cli, tmp_path: Path) -> None:
    """--resume on a folder without run.json is refused."""
    folder = tmp_path / "not-a-run"
    folder.mkdir()
    cli_error(cli, ["batch", "--resume", str(folder), "--no-progress"], str(folder))


def test_resume_corrupt_run_json(cli: Cli, tmp_path: Path) -> None:
    """--resume on a folder whose run.json is not JSON is refused."""
    folder = tmp_path / "broken-run"
    folder.mkdir()
    (folder / "run.json").write_text("{")
    cli_error(cli, ["batch", "--resume", str(folder), "--no-progress"], "run.json")


def test_zero_attempts(cli: Cli, listening_url: str) -> None:
    """--max-attempts below 1 is refused before any call."""
    cli_error(cli, ["ask", "openai/x", "hi", "--base-url", listening_url, "--max-attempts",
                    "0"], "--max-attempts")


def test_version(cli_env: dict[str, str]) -> None:
    """`python -m verstehen --version` prints the package version (a real process)."""
    done = run_cli(["--version"], cli_env)
    assert done.returncode == 0
    assert done.stdout.split() == ["verstehen", verstehen.__version__]


def test_help_lists_commands(cli: Cli) -> None:
    """--help names every command."""
    done = cli(["--help"])
    assert done.returncode == 0
    for command in ("models", "ask", "batch", "cache"):
        assert re.search(rf"^\s+{command}\s", done.stdout, re.MULTILINE), command


@pytest.mark.parametrize("url", ["http://127.0.0.1:99999/v1", "http://127.0.0.1:0/v1",
                                 "127.0.0.1:8000", "ftp://host/v1", "http:///v1"])
@pytest.mark.parametrize("flag", [["ask", "openai/x", "hi", "--base-url"],
                                  ["audit", "--judge", "openai/x", "--judge-base-url"]])
def test_malformed_base_url_is_refused_while_parsing(cli: Cli, flag: list[str],
                                                     url: str) -> None:
    """A base URL without an http(s) scheme, a host or a port from 1 to 65535 is one line
    naming the flag (a port out of range used to end in a ValueError traceback)."""
    cli_error(cli, [*flag, url], flag[-1], url)


def test_negative_sample_index_is_refused(cli: Cli) -> None:
    """`ask --sample -1` is refused before the model loads (it used to be asked)."""
    cli_error(cli, ["ask", "local/smollm2-135m", "hi", "--sample", "-1"], "--sample")


def test_options_may_come_between_positionals(cli: Cli, tmp_path: Path) -> None:
    """`batch MODEL --base-url URL PROMPTS` and `report RUN1 -o OUT RUN2` read as users type
    them (before: "unrecognized arguments: PROMPTS"); what a command cannot read names the
    command's own help (issue 30)."""
    args = build_parser().parse_args(
        ["batch", "openai/m", "--base-url", "http://127.0.0.1:9/v1", "p.txt", "--seed", "3"])
    assert (args.model, str(args.prompts), args.base_url, args.seed) == (
        "openai/m", "p.txt", "http://127.0.0.1:9/v1", 3)
    args = build_parser().parse_args(["report", "r1", "-o", "x.html", "r2"])
    assert [str(r) for r in args.runs] == ["r1", "r2"] and str(args.out) == "x.html"
    cli_error(cli, ["batch", "openai/m", "p.txt", "extra"], "unrecognized arguments: extra",
              "see verstehen batch --help")
