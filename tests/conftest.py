"""Shared fixtures: free ports, local servers (stub and real llama.cpp), the CLI, the cache, a
small multiple-choice file.

CLI tests run `verstehen.cli.main(argv)` in this process (`cli` fixture, `cli_error`), with a
private cache and runs folder and no API keys; `run_cli` starts a real `python -m verstehen`
process for the few tests that need one (signals, exit of the interpreter, servers).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from verstehen.cli.main import main
from verstehen.models.embedded import embedded_path
from verstehen.testing.ports import free_port, wait_for_port

PYTHON = sys.executable
# A suite started as a background job (`nohup ... &`) inherits SIGINT ignored, and so would
# every `python -m verstehen` it starts: the Ctrl-C tests would see nothing. A Python handler
# is reset to the default on exec, so each child installs its own KeyboardInterrupt again.
signal.signal(signal.SIGINT, signal.default_int_handler)
# the shared data sets live beside the repository (../shared/data); VERSTEHEN_SHARED_DATA moves it
SHARED_DATA = Path(os.environ.get("VERSTEHEN_SHARED_DATA")
                   or Path(__file__).resolve().parents[2] / "shared" / "data")


def _absent(parts: tuple[str, ...]) -> list[Path]:
    return [path for path in (SHARED_DATA / part for part in parts or ("",))
            if not path.exists()]


def needs_shared(*parts: str) -> pytest.MarkDecorator:
    """Skip the marked test (or module, as `pytestmark`) unless these paths under the shared
    data sets exist (no parts: the folder itself); the reason names what is missing."""
    missing = _absent(parts)
    return pytest.mark.skipif(bool(missing), reason=f"shared data not found at {missing[0]} "
                              "(set VERSTEHEN_SHARED_DATA)" if missing else "")


def shared_data(*parts: str) -> Path:
    """The path under the shared data sets, or a skip of the calling test when it is absent
    (for fixtures and tests that pick their file at run time)."""
    if missing := _absent(parts):
        pytest.skip(f"shared data not found at {missing[0]} (set VERSTEHEN_SHARED_DATA)")
    return SHARED_DATA.joinpath(*parts)


class Server:
    """A server process on 127.0.0.1, stopped when the test (or session) ends."""

    def __init__(self, args: list[str], port: int, log: Path) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}/v1"
        self._log = log.open("wb")
        self.proc = subprocess.Popen([PYTHON, "-m", *args], stdout=self._log,
                                     stderr=subprocess.STDOUT)
        wait_for_port(port, self.proc)

    def stop(self) -> None:
        """Terminate and reap the process."""
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._log.close()


@pytest.fixture(scope="session")
def smol_path() -> Path:
    """The embedded GGUF file."""
    return embedded_path("smollm2-135m")


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """llama-cpp-python's OpenAI-compatible server on the embedded model (one per session)."""
    port = free_port()
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    server = Server(["verstehen.testing.llama_server", "--model", "smollm2-135m",
                     "--host", "127.0.0.1", "--port", str(port), "--n_threads", "2",
                     "--n_ctx", "2048"], port, log)
    yield server
    server.stop()


@pytest.fixture
def stub_server(tmp_path: Path) -> Iterator[object]:
    """A factory of stub OpenAI chat servers: `stub_server(delay=0.0)` -> Server."""
    servers: list[Server] = []

    def start(delay: float = 0.0) -> Server:
        port = free_port()
        server = Server(["verstehen.testing.stub_server", "--port", str(port),
                         "--delay", str(delay)], port, tmp_path / f"stub-{port}.log")
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def cache_path(tmp_path: Path) -> Path:
    """A fresh cache file for one test."""
    return tmp_path / "calls.sqlite"


@pytest.fixture
def cli_env(tmp_path: Path, cache_path: Path) -> dict[str, str]:
    """Environment for CLI subprocesses: private cache and runs dir, no API keys."""
    env = {k: v for k, v in os.environ.items()
           if k not in {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL",
                        "ANTHROPIC_BASE_URL"}}
    env.update(VERSTEHEN_CACHE=str(cache_path), VERSTEHEN_RUNS_DIR=str(tmp_path / "runs"))
    return env


@dataclass(frozen=True)
class Ran:
    """What one in-process CLI call returned and printed."""

    returncode: int
    stdout: str
    stderr: str


Cli = Callable[[list[str]], Ran]


@pytest.fixture
def cli(cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> Cli:
    """`cli(args)`: run `verstehen ARGS` in this process with cli_env; its code and output."""
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    for name in ("VERSTEHEN_CACHE", "VERSTEHEN_RUNS_DIR"):
        monkeypatch.setenv(name, cli_env[name])

    def run(args: list[str]) -> Ran:
        capsys.readouterr()
        code = main(args)
        out = capsys.readouterr()
        return Ran(code, out.out, out.err)

    return run


def cli_error(cli: Cli, args: list[str], *needles: str) -> str:
    """Run the CLI in process: exit 2 and one stderr line, which contains every needle."""
    done = cli(args)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    for needle in needles:
        assert needle in lines[0]
    return lines[0]


def run_cli(args: list[str], env: dict[str, str], timeout: float = 120.0,
            ) -> subprocess.CompletedProcess[str]:
    """Run `python -m verstehen ARGS` and capture its output."""
    return subprocess.run([PYTHON, "-m", "verstehen", *args], env=env, capture_output=True,
                          text=True, timeout=timeout)


def user_error(args: list[str], env: dict[str, str], *needles: str) -> str:
    """Run the CLI, check exit 2 and a single stderr line, which contains every needle."""
    done = run_cli(args, env, timeout=60)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    for needle in needles:
        assert needle in lines[0]
    return lines[0]


def figures_saved_by(monkeypatch: pytest.MonkeyPatch, module: object) -> list:
    """The figures `module` saves through its `save_png`, in order, each still written to its
    path (for tests that look inside a figure a public plot function made)."""
    from verstehen.report import figures

    caught: list = []

    def save(fig: object, path: Path) -> None:
        caught.append(fig)
        figures.save_png(fig, path)

    monkeypatch.setattr(module, "save_png", save)
    return caught


@pytest.fixture(scope="session")
def mcq_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CSQA-style file of ten questions whose right answers cycle through the five labels."""
    path = tmp_path_factory.mktemp("mcq") / "five.jsonl"
    rows = [{"id": f"q{i}", "answerKey": "ABCDE"[i % 5],
             "question": {"stem": f"Which thing is number {i}?",
                          "choices": [{"label": lab, "text": f"thing {lab.lower()}{i}"}
                                      for lab in "ABCDE"]}} for i in range(10)]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path
