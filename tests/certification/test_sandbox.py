"""The sandbox that runs model-written programs: results, faults, limits and refused actions.

The attack suite (test_sandbox_attacks.py) checks each layer alone; these are the behaviours a
caller sees, and the regressions of the forged-report issue.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import socket
import time
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from verstehen.engine.cache import Cache
from verstehen.engine.runner import Runner
from verstehen.engine.store import RunStore
from verstehen.grading import Graded
from verstehen.methods.certification import sandbox
from verstehen.methods.certification.explain import explain_family, grade_outputs
from verstehen.methods.certification.sandbox import (
    LAYERS,
    Limits,
    SandboxResult,
    extract_code,
    run_program,
)
from verstehen.methods.certification.scopes import get_scope
from verstehen.testing.scripted import ScriptedModel

FAST = Limits(cpu_seconds=5, wall_seconds=20.0, per_call_seconds=2.0)


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A TCP socket really listening on 127.0.0.1 (port is listener.getsockname()[1])."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    sock.settimeout(0.3)
    yield sock
    sock.close()


def _assert_no_connection(sock: socket.socket) -> None:
    """Fail if anything connected to the listening socket."""
    with pytest.raises(TimeoutError):
        conn, _ = sock.accept()
        conn.close()


def test_correct_program_returns_values() -> None:
    source = "import math\ndef solve(a, b):\n    return math.gcd(a, b) * 10 + a - b\n"
    inputs = [[12, 18], [7, 5], [0, 9], [100, 75], [-4, 6]]
    result = run_program(source, "solve", inputs, FAST)
    assert result.ok and result.error is None
    assert result.outputs == [{"value": math.gcd(a, b) * 10 + a - b} for a, b in inputs]


def test_many_inputs_use_one_fast_child() -> None:
    inputs = [[i, i + 3] for i in range(5000)]
    started = time.monotonic()
    result = run_program("def solve(a, b):\n    return a * b\n", "solve", inputs)
    assert time.monotonic() - started < 2.0
    assert [o["value"] for o in result.outputs] == [a * b for a, b in inputs]


def test_runtime_error_is_per_input() -> None:
    result = run_program("def solve(a, b):\n    return a // b\n", "solve", [[7, 2], [1, 0], [9, 3]])
    assert result.ok
    assert result.outputs[0] == {"value": 3} and result.outputs[2] == {"value": 3}
    assert result.outputs[1]["error"].startswith("ZeroDivisionError:")


def test_syntax_error_and_missing_entry() -> None:
    bad = run_program("def solve(a, b)\n    return a\n", "solve", [[1, 2]], FAST)
    assert not bad.ok and bad.outputs == []
    assert bad.error is not None and bad.error.startswith("syntax error:")
    missing = run_program("def answer(a, b):\n    return a\n", "solve", [[1, 2]], FAST)
    assert not missing.ok and missing.error == "no function named solve"


def test_network_is_refused(listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    source = (
        "import socket\n"
        "def solve():\n"
        f"    socket.create_connection(('127.0.0.1', {port}), timeout=1).sendall(b'x')\n"
        "    return 1\n"
    )
    result = run_program(source, "solve", [[]], FAST)
    assert not result.ok and result.outputs == []
    assert result.error is not None and result.error.startswith("blocked: network access")
    _assert_no_connection(listener)


def test_blocked_action_cannot_be_swallowed(listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    source = (
        "def solve(i):\n"
        "    if i == 1:\n"
        "        try:\n"
        "            import socket\n"
        f"            socket.create_connection(('127.0.0.1', {port}), timeout=1)\n"
        "        except BaseException:\n"
        "            pass\n"
        "    return i\n"
    )
    result = run_program(source, "solve", [[0], [1], [2]], FAST)
    assert not result.ok and result.error == "blocked: network access (import socket)"
    _assert_no_connection(listener)


def test_writes_outside_refused_inside_allowed(tmp_path: Path) -> None:
    target = tmp_path / "stolen.txt"
    real = os.path.realpath(target)
    for body in (f"open({str(target)!r}, 'w').write('x')",
                 f"import os; os.close(os.open({str(target)!r}, os.O_WRONLY | os.O_CREAT))",
                 f"import shutil; shutil.copyfile('a', {str(target)!r})"):
        source = f"def solve():\n    open('a', 'w').close()\n    {body}\n    return 1\n"
        result = run_program(source, "solve", [[]], FAST)
        assert not result.ok, body
        assert result.error == f"blocked: write outside the sandbox (open {real})"
        assert not target.exists()
    inside = (
        "import os\n"
        "def solve(text):\n"
        "    with open('notes.txt', 'w') as fh:\n"
        "        fh.write(text)\n"
        "    os.mkdir('sub')\n"
        "    os.rename('notes.txt', 'sub/n.txt')\n"
        "    return [open('sub/n.txt').read(), os.path.basename(os.getcwd())]\n"
    )
    result = run_program(inside, "solve", [["hello"]], FAST)
    assert result.ok, result.error
    assert result.outputs[0]["value"][0] == "hello"
    assert result.outputs[0]["value"][1].startswith("verstehen-sandbox-")


def test_remove_outside_refused(tmp_path: Path) -> None:
    victim = tmp_path / "keep.txt"
    victim.write_text("data")
    result = run_program(f"import os\ndef solve():\n    os.remove({str(victim)!r})\n", "solve",
                         [[]], FAST)
    real = os.path.realpath(victim)
    assert result.error == f"blocked: write outside the sandbox (os.remove {real})"
    assert victim.read_text() == "data"


def test_runaway_cpu_hits_cpu_limit() -> None:
    limits = Limits(cpu_seconds=1, wall_seconds=20.0, per_call_seconds=60.0)
    result = run_program("def solve():\n    while True:\n        pass\n", "solve", [[]], limits)
    assert not result.ok and result.error is not None and "cpu" in result.error
    assert result.seconds < 10


def test_per_call_timeout_spares_other_inputs() -> None:
    source = "def solve(n):\n    while n < 0:\n        pass\n    return n * 2\n"
    limits = Limits(cpu_seconds=10, per_call_seconds=0.3)
    result = run_program(source, "solve", [[1], [-1], [4]], limits)
    assert result.ok
    assert result.outputs == [{"value": 2}, {"error": "timeout"}, {"value": 8}]


def test_wall_clock_limit_kills_the_child() -> None:
    limits = Limits(wall_seconds=1.0, per_call_seconds=30.0)
    result = run_program("import time\ndef solve():\n    time.sleep(20)\n", "solve", [[]], limits)
    assert not result.ok and result.error == "wall-clock limit exceeded"
    assert result.seconds < 5


@pytest.mark.parametrize("body", ["return bytearray(2 * 2**30)",
                                  "x = []\n    while True:\n        x.append(' ' * 2**20)"])
def test_runaway_memory(body: str) -> None:
    limits = Limits(memory_bytes=256 * 2**20, cpu_seconds=10)
    result = run_program(f"def solve():\n    {body}\n", "solve", [[]], limits)
    assert not result.ok and result.error is not None and "memory" in result.error
    after = run_program("def solve():\n    return 1\n", "solve", [[]], FAST)
    assert after.outputs == [{"value": 1}]


@pytest.mark.parametrize("body", [
    "import os; return os.system('touch /tmp/verstehen-sandbox-pwned')",
    "import subprocess; return subprocess.run(['true']).returncode",
    "import os; return os.fork()",
    "import os; os.execv('/bin/true', ['true'])",
    "import ctypes; return ctypes.CDLL(None).getpid()",
])
def test_processes_and_native_code_refused(body: str) -> None:
    result = run_program(f"def solve():\n    {body}\n", "solve", [[]], FAST)
    assert not result.ok
    assert result.error is not None and result.error.startswith("blocked: ")
    assert ("process control" in result.error) or ("native code" in result.error)
    assert not Path("/tmp/verstehen-sandbox-pwned").exists()


def test_environment_is_scrubbed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "secret")
    source = (
        "import os\n"
        "def solve():\n"
        "    return [os.environ.get('OPENAI_API_KEY'), sorted(os.environ)]\n"
    )
    result = run_program(source, "solve", [[]], FAST)
    key, names = result.outputs[0]["value"]
    assert key is None
    assert "OPENAI_API_KEY" not in names and set(names) <= {"PATH", "HOME", "TMPDIR", "LC_CTYPE"}


def test_prints_do_not_corrupt_the_result() -> None:
    source = (
        "import sys\n"
        "def solve(a):\n"
        "    print(a, file=sys.stderr)\n"
        "    print(a)\n"
        "    return -a\n"
    )
    expected = [{"value": -1}, {"value": -2}]
    assert run_program(source, "solve", [[1], [2]], FAST).outputs == expected


def test_unserializable_values() -> None:
    source = (
        "from fractions import Fraction\nfrom decimal import Decimal\n"
        "class Big(int):\n    pass\n"
        "def solve(i):\n"
        "    return [Fraction(1, 3), Decimal('2.5'), float('nan'), float('inf'), -float('inf'),\n"
        "            complex(1, 2), {1, 2}, Big(7), (1, [2.5, None]), {'k': object()}, True][i]\n"
    )
    result = run_program(source, "solve", [[i] for i in range(11)], FAST)
    assert result.ok
    values = [o.get("value", o.get("error")) for o in result.outputs]
    assert values == [
        float(Fraction(1, 3)), 2.5, "nan", "inf", "-inf",
        "unserializable result: complex", "unserializable result: set", 7, [1, [2.5, None]],
        "unserializable result: object", True,
    ]


def test_output_cap() -> None:
    limits = Limits(output_bytes=100_000)
    result = run_program("def solve():\n    return 'x' * 1_000_000\n", "solve", [[]], limits)
    assert not result.ok and result.error == "output limit exceeded"


def test_network_namespace_layer_alone(listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    source = (
        "import socket\n"
        "def solve():\n"
        f"    socket.create_connection(('127.0.0.1', {port}), timeout=1)\n"
    )
    result = run_program(source, "solve", [[]], FAST, layers=frozenset({"netns"}))
    if not result.network_namespace:
        pytest.skip("no network namespace on this machine")
    assert result.ok and result.layers == {"netns"}
    assert result.outputs[0]["error"].startswith(("OSError", "ConnectionRefused"))
    _assert_no_connection(listener)


def test_landlock_layer_alone(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    source = (
        "def solve():\n"
        "    open('ok.txt', 'w').write('ok')\n"
        f"    open({str(outside)!r}, 'w')\n"
    )
    result = run_program(source, "solve", [[]], FAST, layers=frozenset({"landlock"}))
    if not result.landlock:
        pytest.skip("no Landlock on this machine")
    assert result.ok and result.layers == {"landlock"}
    assert result.outputs[0]["error"].startswith("PermissionError")
    assert not outside.exists()


def test_layers_in_force_are_reported() -> None:
    """The layers asked for, as applied (rlimits brings the tmpfs quota where it can)."""
    full = run_program("def solve():\n    return 1\n", "solve", [[]], FAST)
    assert full.ok and {"audit", "parent", "rlimits"} <= full.layers <= LAYERS | {"tmpfs"}
    bare = run_program("def solve():\n    return 1\n", "solve", [[]], FAST, layers=frozenset())
    assert bare.ok and bare.layers == frozenset()
    assert not bare.network_namespace and not bare.landlock


FORGE_BY_FRAMES = """
import sys
def solve(a):
    frame = sys._getframe()
    while frame is not None:
        for name, obj in list(frame.f_locals.items()) + list(frame.f_globals.items()):
            if callable(obj) and name in ("send", "fatal"):
                for args in [({"ok": True, "outputs": [{"value": "FORGED"}] * 5,
                               "error": None},), (b"V", b'{"value": "FORGED"}')] * 5:
                    try:
                        obj(*args)
                    except Exception:
                        pass
        frame = frame.f_back
    return a
"""
FORGE_BY_FDS = """
import json, os
def solve(a):
    value = json.dumps({"value": "FORGED"}).encode()
    message = b"V" + b"%010d" % len(value) + value  # the runner's own message format
    frame = json.dumps({"ok": True, "outputs": [{"value": "FORGED"}] * 5, "error": None,
                        "layers": []}).encode()
    frame = b"0" * 32 + b" %d\\n" % len(frame) + frame  # the parent's, with a guessed nonce
    for fd in range(1, 10):
        for forged in [message] * 5 + [frame]:
            try:
                os.write(fd, forged)
            except OSError:
                pass
    os._exit(0)
"""


@pytest.mark.parametrize("source", [FORGE_BY_FRAMES, FORGE_BY_FDS], ids=["frames", "fds"])
def test_a_forged_report_fails_the_run(source: str) -> None:
    """Issue: walking up to the child's finish() or writing JSON to the result fd gave the
    caller five outputs for one input (and explain.py a traceback, on every rerun)."""
    result = run_program(source, "solve", [[7]], FAST)
    assert not result.ok and result.outputs == []
    assert "FORGED" not in json.dumps(result.outputs)
    assert result.error is not None and "malformed report" in result.error


def test_report_checks() -> None:
    """The caller's checks of the supervisor's frame: nonce, length, shape, count."""
    nonce = b"0" * 32

    def frame(doc: Any, key: bytes = nonce, extra: bytes = b"") -> bytes:
        body = json.dumps(doc).encode()
        return key + b" %d\n" % len(body) + body + extra

    good = {"ok": True, "outputs": [{"value": 1}, {"error": "x"}], "error": None,
            "layers": ["audit"]}
    assert sandbox._report(frame(good), nonce, 2, LAYERS) == (
        True, [{"value": 1}, {"error": "x"}], None, ["audit"])
    bad = [frame(good, key=b"1" * 32), frame(good, extra=b"junk"), frame(good)[:-1],
           frame({**good, "outputs": [{"value": 1}] * 3}), frame({**good, "layers": ["x"]}),
           frame({**good, "outputs": [{"value": 1}, {"error": 2}]}), frame([1, 2]),
           frame({**good, "ok": False}), frame({**good, "extra": 1}), b"no frame at all"]
    for raw in bad:
        found = sandbox._report(raw, nonce, 2, LAYERS)
        assert isinstance(found, str) and found.startswith("malformed sandbox report"), raw
    unasked = sandbox._report(frame(good), nonce, 2, frozenset())  # "audit" was not asked for
    assert isinstance(unasked, str) and unasked.startswith("malformed sandbox report: layers")
    assert sandbox._report(b"", nonce, 2, LAYERS) is None


@pytest.mark.parametrize(("run", "scores"), [
    (SandboxResult(True, [{"value": 1}] * 5, None, 0.1), None),
    (SandboxResult(True, [{"value": 1}], None, 0.1), None),
    (SandboxResult(True, ["x", None, 3], None, 0.1), None),  # type: ignore[list-item]
    (SandboxResult(True, [{"value": 1}, {}, {"error": 3}], None, 0.1), None),
    (SandboxResult(True, None, None, 0.1), None),  # type: ignore[arg-type]
    (SandboxResult(False, [{"value": 1}] * 3, None, None), None),  # type: ignore[arg-type]
    (SandboxResult(True, [{"value": [[1]]}, {"error": "boom"}, {"value": 2}], None, 0.1),
     [0.0, 0.0, 1.0]),
])
def test_grading_survives_any_result(run: SandboxResult, scores: list[float] | None) -> None:
    """Whatever the sandbox returns, explain grades each question (0 when the run gives no
    usable output, with the reason) and never raises; a grader that chokes scores 0 too."""
    def grade(question: Any, value: Any) -> Graded:
        if isinstance(value, list):
            raise TypeError("not a number")
        return Graded(1.0, "correct")

    graded, failure = grade_outputs(["q1", "q2", "q3"], run, grade)  # type: ignore[arg-type]
    if scores is None:
        assert failure and [g.score for g in graded] == [0.0, 0.0, 0.0]
        assert all(g.reason == f"program failed: {failure}" for g in graded)
    else:
        assert failure is None and [g.score for g in graded] == scores
        assert graded[0].reason is not None and graded[0].reason.startswith("grading failed")
        assert graded[1].reason == "program failed: boom"


def test_a_forging_program_scores_zero_on_every_run(tmp_path: Path) -> None:
    """Issue: the model's reply is cached, so a program that crashed explain crashed every
    rerun. Now it is a failed program: score 0, reason in the record, and reruns agree."""
    scope = get_scope("arithmetic")
    reply = "```python\n" + FORGE_BY_FRAMES.replace("solve(a)", "solve(a, b)") + "```"
    model = ScriptedModel("scripted/forger", reply=lambda prompt: reply)
    family = sorted(scope.families)[0]
    records = []
    for attempt in range(2):
        runner = Runner(Cache(tmp_path / "calls.sqlite"))
        store = RunStore.create(tmp_path / f"runs{attempt}", command="certify", argv=[],
                                config={}, seed=0, models=[model.identity()])
        try:
            explained = asyncio.run(explain_family(runner, model, scope, store, family, 0, 0, 4))
        finally:
            runner.cache.close()
        assert explained is not None and list(explained.scores) == [0.0] * 4
        records.append(next(r for r in store.records() if r["kind"] == "explanation"))
    assert len(model.calls) == 1  # the second run read the cached reply
    for record in records:
        assert record["program_ok"] is False and record["mean_score"] == 0.0
        assert "malformed report" in record["program_error"]
        assert all("malformed report" in ex["reason"] for ex in record["examples"])


def test_temp_dir_is_removed() -> None:
    source = "import os\ndef solve():\n    open('f', 'w').close()\n    return os.getcwd()\n"
    where = run_program(source, "solve", [[]], FAST).outputs[0]["value"]
    assert where and not os.path.exists(where)


def test_extract_code() -> None:
    fenced = "Here you go:\n```python\ndef solve(a, b):\n    return a * b\n```\nDone."
    assert extract_code(fenced) == "def solve(a, b):\n    return a * b\n"
    second = "```json\n{}\n```\nthen\n```\ndef solve():\n    return 1\n```"
    assert extract_code(second) == "def solve():\n    return 1\n"
    unfenced = "def solve(a):\n    return -a\n"
    assert extract_code(unfenced) == unfenced
    assert extract_code("The answer is 42.") is None
    assert extract_code("```python\ndef solve():\n    return 2") == "def solve():\n    return 2\n"
