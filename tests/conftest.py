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
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
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


# --- the fast tier: `pytest -m fast` ---------------------------------------------------------
# A test is marked `fast` at collection unless one of these rules takes it out:
#   1. it is marked `slow` or `not_fast`;
#   2. it uses a fixture that starts a process or server, loads the embedded model, drives a
#      browser or runs the CLI (FAST_TIER_FIXTURES; `cli` runs through `cli_env`);
#   3. it uses a module- or session-scoped fixture defined in a test module: a setup shared
#      because it is costly;
#   4. its code, or that of a fixture or helper from tests/ it uses, names something that
#      starts a process, serves HTTP, waits on the clock, reads the shared data sets or a
#      whole tree of files, loads LiteLLM or computes a plan's reach (FAST_TIER_NAMES);
#   5. it is a hypothesis property test (many examples);
#   6. it is not the sample: of a parametrized test only the first case is fast, and of the
#      tests that write to disk (tmp_path, tmp_path_factory: mostly whole runs of a method)
#      only the first of each test module.
# `pytest.mark.fast` puts a test in whatever rules 2-6 say (never a slow one); `not_fast` takes
# it out where the rules cannot tell (a test that computes for seconds: `pytest -m fast` ends
# by naming each fast test that took over FAST_TIER_CPU seconds of CPU). The config's stash
# (`fast_tier_key`) keeps the verdict on every collected test, from before `-m` deselects;
# tests/test_fast_tier.py checks what the tier covers.
FAST_TIER_FIXTURES = frozenset({"llama_server", "smol_path", "stub_server", "browser",
                                "cli_env"})
FAST_TIER_NAMES = frozenset({
    # processes: the CLI, a certified program's sandbox, a notebook's kernel
    "subprocess", "Popen", "executable", "run_cli", "user_error", "run_program",
    "NotebookClient",
    # servers in this process (stopping one waits out its 0.5 s poll)
    "HostileServer", "ThreadingHTTPServer", "HTTPServer", "serve_forever", "shutdown",
    "sleep", "monotonic",  # the clock
    "shared_data", "SHARED_DATA",  # the shared data sets
    "rglob",  # reads every file under a folder: the package's source, a whole run folder
    "litellm", "load_litellm", "LiteLLMModel",  # import LiteLLM: 3 s
    "reach",  # a plan's reach: the sequential test over every count up to the budget
})
FAST_TIER_CPU = 1.0  # seconds of CPU over which a fast run names a fast test
FAST_TIER_DISK = frozenset({"tmp_path", "tmp_path_factory"})
TESTS_ROOT = Path(__file__).resolve().parent


@dataclass
class FastTier:
    """The fast tier of a collection: for every test, None where it is in the tier (it
    carries the `fast` marker) or the rule that took it out; and which tests are slow."""

    out: dict[str, str | None] = field(default_factory=dict)
    slow: set[str] = field(default_factory=set)


fast_tier_key = pytest.StashKey[FastTier]()


_TESTS_PREFIX = f"{TESTS_ROOT}{os.sep}"
_names_used: dict[object, frozenset[str]] = {}


def _defined_in_tests(func: object) -> bool:
    code = getattr(func, "__code__", None)
    return code is not None and code.co_filename.startswith(_TESTS_PREFIX)


def _code_names(func: object) -> frozenset[str]:
    """The global and attribute names `func` uses, with those of the functions defined in it
    and of the functions and classes from tests/ it names (helpers), followed through."""
    key = getattr(func, "__code__", None)
    if key in _names_used:
        return _names_used[key]
    names: set[str] = set()
    seen: set[object] = set()
    todo = [func]
    while todo:
        function = todo.pop()
        codes = [getattr(function, "__code__", None)]
        while codes:
            code = codes.pop()
            if code is None or code in seen:
                continue
            seen.add(code)
            names.update(code.co_names)
            codes.extend(const for const in code.co_consts if hasattr(const, "co_names"))
            for name in code.co_names:
                helper = getattr(function, "__globals__", {}).get(name)
                helpers = vars(helper).values() if isinstance(helper, type) else [helper]
                todo.extend(h for h in helpers if _defined_in_tests(h)
                            and h.__code__ not in seen)
    _names_used[key] = result = frozenset(names)
    return result


def _fast_tier_reason(item: pytest.Item, sampled: set[object]) -> str | None:
    """Why `item` is not in the fast tier (rules 1-6 above), or None when it is."""
    if item.get_closest_marker("slow"):
        return "slow"
    if item.get_closest_marker("not_fast"):
        return "marked not_fast"
    if item.get_closest_marker("fast"):
        return None
    fixtures = set(getattr(item, "fixturenames", ()))
    if used := sorted(fixtures & FAST_TIER_FIXTURES):
        return f"uses {used[0]}"
    info = getattr(item, "_fixtureinfo", None)
    defs = info.name2fixturedefs if info else {}
    funcs = [getattr(item, "function", None)]
    for name in sorted(defs):
        fixturedef = defs[name][-1]
        if not _defined_in_tests(fixturedef.func):
            continue
        module = Path(fixturedef.func.__code__.co_filename).name
        if fixturedef.scope != "function" and module.startswith("test_"):
            return f"uses the shared fixture {name}"
        funcs.append(fixturedef.func)
    if getattr(funcs[0], "is_hypothesis_test", False):
        return "hypothesis"
    for func in funcs:
        if named := sorted(_code_names(func) & FAST_TIER_NAMES):
            return f"names {named[0]}"
    callspec = getattr(item, "callspec", None)
    if callspec is not None and any(callspec.indices.values()):
        return "a later case of a parametrized test"
    if fixtures & FAST_TIER_DISK:
        module = item.nodeid.split("::")[0]
        if module in sampled:
            return "writes to disk, not the first such test of its module"
        sampled.add(module)
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the fast tier (before `-m` deselects); keep each test's verdict in the stash."""
    tier = FastTier()
    sampled: set[object] = set()
    for item in sorted(items, key=lambda it: (it.nodeid.split("::")[0], it.location[1] or 0)):
        reason = _fast_tier_reason(item, sampled)
        if reason is None:
            item.add_marker(pytest.mark.fast)
        tier.out[item.nodeid] = None if item.get_closest_marker("fast") else reason
        if item.get_closest_marker("slow"):
            tier.slow.add(item.nodeid)
    config.stash[fast_tier_key] = tier
    if report := os.environ.get("VERSTEHEN_FAST_TIER_REPORT"):  # for tests/test_fast_tier.py
        Path(report).write_text(json.dumps({"out": tier.out, "slow": sorted(tier.slow)}))


_fast_tier_slow: list[tuple[float, str]] = []


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> object:
    """Time the CPU of each fast test (setup, call and teardown)."""
    if not item.get_closest_marker("fast"):
        return (yield)
    start = time.process_time()
    try:
        return (yield)
    finally:
        if (spent := time.process_time() - start) > FAST_TIER_CPU:
            _fast_tier_slow.append((spent, item.nodeid))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter,
                            config: pytest.Config) -> None:
    """Under `-m fast`, name the fast tests that took too long for the tier."""
    if _fast_tier_slow and "fast" in (config.option.markexpr or ""):
        terminalreporter.section(f"fast tests over {FAST_TIER_CPU:g} s of CPU")
        for spent, nodeid in sorted(_fast_tier_slow, reverse=True):
            terminalreporter.line(f"{spent:5.1f} s  {nodeid}")
        terminalreporter.line("make them quicker, or mark them `pytest.mark.not_fast`")
