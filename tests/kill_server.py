"""The process `test_killed_writers.py` kills writers in: it imports every writer and runs
each once, then, per request (a JSON line on stdin), forks a child that runs one command with
its output sent to /dev/null and ends. It prints the child's pid, waits for a line saying the
child may be reaped (so its pid cannot be reused before the test's SIGKILL reaches it), then
prints how the child ended. Each kill is a real SIGKILL of a real process, without a Python
start-up per kill.

Requests: {"argv": [...]} runs `verstehen ARGV`; {"junit": PATH} writes `--junit`'s file of a
suite of JUNIT_CASES verdicts (certify's, from the run folder given at start).
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

from verstehen.cli.main import main
from verstehen.cli.verdicts import VerdictCase, VerdictSuite, write_junit
from verstehen.methods.certification.results import CertifyResult
from verstehen.results import from_jsonable

JUNIT_CASES = 4000


def junit_suite(run: Path) -> VerdictSuite:
    """JUNIT_CASES cases, each a verdict of the certify run's first scope under its own name."""
    result = from_jsonable(CertifyResult, json.loads((run / "summary.json").read_text()))
    scope = result.scopes[0]
    return VerdictSuite("certify", tuple(
        VerdictCase(result.model, f"{scope.scope}#{i}", scope.verdict)
        for i in range(JUNIT_CASES)), result.criterion, result.run_dir, 1.0)


def run(request: dict[str, object], suite: VerdictSuite) -> int:
    """Run one request in this process; its exit code."""
    if "junit" in request:
        write_junit(Path(str(request["junit"])), suite, frozenset())
        return 0
    argv = request["argv"]
    assert isinstance(argv, list)
    return main([str(word) for word in argv])


def child(request: dict[str, object], suite: VerdictSuite) -> None:
    """The forked child: run the request, its output to /dev/null, and end."""
    code = 70
    try:
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        code = run(request, suite)
    finally:
        os._exit(code)


def serve() -> None:
    """Warm every writer up (argv[1]: {"certify": RUN, "warm": [request, ...]}), then serve."""
    setup = json.loads(sys.argv[1])
    suite = junit_suite(Path(setup["certify"]))
    saved = os.dup(1)
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)  # the warm-up's printing must not reach the protocol
    codes = [run(request, suite) for request in setup["warm"]]
    sys.stdout.flush()
    os.dup2(saved, 1)
    print(json.dumps({"ready": codes, "threads": threading.active_count()}), flush=True)
    while line := sys.stdin.readline():
        pid = os.fork()
        if pid == 0:
            child(json.loads(line), suite)
        print(pid, flush=True)
        sys.stdin.readline()  # the test killed it (or not): now it may be reaped
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
                          "code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None}),
              flush=True)


if __name__ == "__main__":
    serve()
