"""Run a model-written program ("explanation") on many inputs in a confined child process.

Processes. `run_program` starts a supervisor, ``python -I -S -B sandbox_child/`` in its own
session with a fresh temp dir as cwd; the supervisor forks a runner, and only the runner
executes the program. Each layer below is applied by the runner to itself before the program's
first line, and each can be left out (``layers=``, for tests); tests/certification/
test_sandbox_attacks.py runs about a hundred attack programs against each layer alone, and
docs/architecture.md has the table of what each one stops.

Result channel, and why a program cannot forge it. The job goes in on the supervisor's stdin,
followed by a fresh 128-bit nonce that the supervisor reads only after forking the runner: the
nonce is never in the runner's memory, so no frame walk, gc scan or /proc/self read inside the
runner can find it. Before anything else the runner closes every descriptor it inherited but
two pipes to the supervisor (stderr and reports) and /dev/null: the supervisor's stdin and
stdout are not among them. The runner reports the layers in force before the program is
compiled, then one message per input. The program shares the runner's process and can write
to that pipe too, so the supervisor trusts nothing in it: it takes the first message as the
layers (the program had not run yet), then accepts exactly one output per input, each
``{"value": JSON}`` or ``{"error": str}``, and an end mark; anything else fails the run. What
the program can put there is therefore no more than what it could return. The supervisor then
writes one frame, ``<nonce> <length>\\n<JSON>``, to its stdout; this module accepts that frame
only with the run's nonce and the exact length, and checks its shape again (ok/error/outputs
consistent, one output per input, only layers that were asked for). A malformed report fails
the run with an error; it never raises. To reach the supervisor's stdout or memory the program
needs /proc/<pid>/fd, /proc/<pid>/mem or ptrace of another process, which the process layer
(another uid), Landlock (no access to processes outside its domain) and the audit hook (no
/proc/<pid> but its own) each refuse; with none of the three, a root program can read the
nonce out of the supervisor and forge a frame, and the checks above still hold it to one
output per input.

Layers (`LAYERS`):

- process: environment PATH/HOME/TMPDIR only (no API keys); as root, a fresh uid/gid per run
  (the temp dir is chowned to it) with no groups or capabilities, RLIMIT_NPROC 0, which binds
  for that uid, and no_new_privs.
- netns: a network namespace with only a down loopback (inside a user namespace when not root).
- rootfs: in a private mount namespace, the runner pivots into a fresh tmpfs holding only the
  temp dir, read-only binds of the paths it may read (the standard library, system libraries),
  the device files above and /proc, and detaches the host's root: no other host path exists
  for the program, so not even os.stat or os.path.exists sees /etc/shadow or the cache file
  (Landlock and the audit hook do not cover stat).
- landlock (Linux >= 5.13): reads only in the temp dir, the standard library and system
  libraries; writes, creation, removal and renames only in the temp dir; no execve; no TCP
  bind/connect (ABI >= 4); no signals or abstract-socket connections leaving the runner
  (ABI >= 6); no access to other processes' /proc entries.
- rlimits: CPU seconds, address space, file size (the disk cap), 32 open files, no core dumps,
  RLIMIT_NPROC 0 (not binding for root); and the temp dir becomes a tmpfs of `disk_bytes` and
  `disk_files` in a private mount namespace.
- audit: a PEP 578 hook, installed before the program is compiled, that ends the whole run with
  ``error="blocked: ..."`` (the program cannot catch it) on sockets and network clients,
  process control, native code and native file access (ctypes, sqlite3, dbm), reads outside
  the temp dir, the standard library and system libraries (other processes' /proc included),
  writes outside the temp dir, directory handles outside it and relative paths with '..'
  (os.open's dir_fd is not in the audit event), links, and tampering (audit hooks, tracing, gc
  walks, setrlimit). Functions without an audit event (os.mkfifo, os.mknod, pidfd signals,
  clock setting) are taken out of their modules. It is a tripwire, not a boundary: it sees
  only audited calls (a fresh posix module brings os.mkfifo back) and threads can race its
  path checks; the kernel layers are what hold.
- parent: every 50 ms and once more at the end, the temp dir's bytes and entries against the
  disk caps; then SIGKILL of every process of the run, not only its process group: descendants
  of the supervisor (a child subreaper, so orphans stay below it), processes of the run's uid,
  and processes whose cwd is in the temp dir, so that a setsid'ed grandchild dies too.

Always on: the wall-clock deadline and a kill of the process group, caps on the bytes read
from the runner and from the supervisor, a SIGALRM timer on loading (compile and top-level
code) and on each call, the report checks, and removal of the temp dir.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import os
import re
import secrets
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verstehen.methods.certification.code_text import extract_code
from verstehen.methods.certification.sandbox_child.messages import Job, Output
from verstehen.methods.certification.sandbox_host import (
    children,
    disk_use,
    kill_run,
    remove_tree,
    waited_seconds,
)

__all__ = ["LAYERS", "Limits", "SandboxResult", "extract_code", "max_inputs", "run_program"]

_CHILD = Path(__file__).with_name("sandbox_child")
_STDERR_KEEP = 64 * 1024
_FRAME = re.compile(rb"([0-9a-f]{32}) ([0-9]{1,12})\n")
_WATCH_SECONDS = 0.05
_WALL_CLOCK = "wall-clock limit exceeded"
LAYERS = frozenset({"process", "netns", "rootfs", "landlock", "rlimits", "audit", "parent"})
"""Every layer; `run_program(..., layers=...)` can leave some out (tests do, to check each one)."""


@dataclass(frozen=True)
class Limits:
    """Resource limits for one sandboxed run."""

    cpu_seconds: int = 20
    wall_seconds: float = 60.0
    memory_bytes: int = 512 * 2**20
    per_call_seconds: float = 1.0
    output_bytes: int = 16 * 2**20
    load_seconds: float = 5.0  # compiling and running the program's top level
    disk_bytes: int = 64 * 2**20  # everything written to the temp dir
    disk_files: int = 1000  # files and directories in the temp dir
    # One output's JSON, {"value": V} or {"error": "..."}. The longest answer a scope can grade
    # is a finite number: a float's repr has at most 24 characters and an int that is a finite
    # float at most 309 digits and a sign, so {"value": V} is at most 321 bytes; 512 holds it.
    # A longer value is that question's error; a longer error message is cut to fit.
    answer_bytes: int = 512


MESSAGE_HEAD = 11  # bytes before each output on the runner's pipe (kind and length)
STARVED_SHARE = 0.25  # of the wall clock spent waiting for a CPU: the machine, not the program


def max_inputs(limits: Limits) -> int:
    """The most inputs whose outputs always fit the output limit, each output being at most
    `answer_bytes` plus its message head (16 MiB / 523 B = 32,078 with the default limits)."""
    return limits.output_bytes // (limits.answer_bytes + MESSAGE_HEAD)


@dataclass(frozen=True)
class SandboxResult:
    """Outcome of a run: per-input outputs, or why the whole run failed; `layers` are those in
    force ("tmpfs" when the rlimits layer could also mount the disk quota).

    `infrastructure` marks a failure that is no grade of the program: a limit of the sandbox
    the run hit through its own size (more inputs than the output limit holds) or a busy
    machine (the wall clock ran out while the run's processes waited for a CPU)."""

    ok: bool
    outputs: list[Output]
    error: str | None
    seconds: float
    layers: frozenset[str] = frozenset()
    infrastructure: bool = False

    @property
    def network_namespace(self) -> bool:
        """Whether the run had its own network namespace (no network)."""
        return "netns" in self.layers

    @property
    def landlock(self) -> bool:
        """Whether Landlock confined the run's file access."""
        return "landlock" in self.layers


class _Abort(Exception):
    """The parent stopped the child (deadline, output or disk cap); the message is the error."""


def _over_disk(tmp: str, limits: Limits) -> bool:
    """True when the temp dir holds more than the disk caps allow."""
    used, count = disk_use(tmp, limits.disk_files)
    return used > limits.disk_bytes or count > limits.disk_files


def _exchange(proc: subprocess.Popen[bytes], payload: bytes, cap: int, deadline: float,
              watch: Any) -> tuple[bytes, bytes]:
    """Feed stdin and collect stdout/stderr without threads, honouring deadline and cap; `watch`
    (or None) is called every 50 ms and returns an error to stop the child with."""
    assert proc.stdin and proc.stdout and proc.stderr
    out, err, pending = bytearray(), bytearray(), memoryview(payload)
    with selectors.DefaultSelector() as sel:
        os.set_blocking(proc.stdin.fileno(), False)
        sel.register(proc.stdin, selectors.EVENT_WRITE)
        sel.register(proc.stdout, selectors.EVENT_READ, out)
        sel.register(proc.stderr, selectors.EVENT_READ, err)
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Abort(_WALL_CLOCK)
            events = sel.select(min(left, _WATCH_SECONDS) if watch else left)
            if watch and (error := watch()):
                raise _Abort(error)
            for key, _ in events:
                if key.fileobj is proc.stdin:
                    try:
                        pending = pending[os.write(key.fd, pending[:65536]):]
                    except BrokenPipeError:
                        pending = pending[:0]
                    if not pending:
                        sel.unregister(proc.stdin)
                        proc.stdin.close()
                    continue
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fileobj)
                elif key.data is out:
                    out += chunk
                    if len(out) > cap:
                        raise _Abort("output limit exceeded")
                elif len(err) < _STDERR_KEEP:
                    err += chunk
    return bytes(out), bytes(err)


def _starved(supervisor: int, limits: Limits) -> str | None:
    """At the wall-clock limit: a note when the run's supervisor and runner waited for a CPU
    for at least STARVED_SHARE of the limit (a busy machine, which a retry may not meet);
    None when they did not (a slow or sleeping program)."""
    waited = waited_seconds([supervisor, *children(supervisor)])
    if waited < STARVED_SHARE * limits.wall_seconds:
        return None
    return (f"sandbox limit: wall clock of {limits.wall_seconds:g} s exceeded on a busy machine "
            f"(the run waited {waited:.0f} s for a CPU)")


def _diagnose(returncode: int, stderr: bytes) -> str:
    """Why a child that wrote no report died."""
    text = stderr.decode("utf-8", "replace")
    if returncode < 0:
        with contextlib.suppress(ValueError):
            return f"sandbox child killed by {signal.Signals(-returncode).name}"
        return f"sandbox child killed by signal {-returncode}"
    last = text.strip().splitlines()[-1:] or ["no result"]
    return f"sandbox child failed (exit code {returncode}): {last[0][:300]}"


# a verdict's ok, outputs, error and layers (`messages.Verdict`), checked
CheckedReport = tuple[bool, list[Output], str | None, list[str]]


def _checked(doc: Any, n_inputs: int, asked: frozenset[str]) -> CheckedReport:
    """The report's fields after checking its shape; ValueError if it is malformed."""
    if not isinstance(doc, dict) or set(doc) != {"ok", "outputs", "error", "layers"}:
        raise ValueError("not an object with ok, outputs, error and layers")
    ok, outputs, error, layers = doc["ok"], doc["outputs"], doc["error"], doc["layers"]
    allowed = asked | ({"tmpfs"} if "rlimits" in asked else set())
    if not isinstance(layers, list) or not all(x in allowed for x in layers):
        raise ValueError("layers is not a list of the layers asked for")
    if ok is False and outputs == [] and isinstance(error, str):
        return False, [], error[:2000], layers
    if ok is not True or error is not None or not isinstance(outputs, list):
        raise ValueError("ok, error and outputs disagree")
    if len(outputs) != n_inputs:
        raise ValueError(f"{len(outputs)} outputs for {n_inputs} inputs")
    for out in outputs:
        if not isinstance(out, dict) or len(out) != 1 or not (
                "value" in out or isinstance(out.get("error"), str)):
            raise ValueError("an output is neither {value} nor {error: str}")
    return True, outputs, None, layers


def _report(out: bytes, nonce: bytes, n_inputs: int, asked: frozenset[str]
            ) -> CheckedReport | str | None:
    """The child's report as checked fields; an error string if it is malformed; None if absent."""
    if not out:
        return None
    head = _FRAME.match(out)
    if head is None or not hmac.compare_digest(head[1], nonce):
        return "malformed sandbox report: no frame with this run's nonce"
    body = out[head.end():]
    if int(head[2]) != len(body):
        return "malformed sandbox report: the frame length is wrong"
    try:
        return _checked(json.loads(body), n_inputs, asked)
    except (ValueError, RecursionError) as exc:
        return f"malformed sandbox report: {str(exc)[:200]}"


def run_program(source: str, entry: str, inputs: list[list[Any]], limits: Limits = Limits(),
                *, layers: frozenset[str] = LAYERS) -> SandboxResult:
    """Call `entry(*args)` for each args list in a sandboxed child; never raises for anything the
    program does. `layers` (default all) is for tests that check one layer at a time."""
    start = time.monotonic()
    if len(inputs) > (most := max_inputs(limits)):
        return SandboxResult(False, [], f"sandbox limit: output over {limits.output_bytes:,} "
                             f"bytes for {len(inputs):,} questions (at most {most:,} fit)",
                             0.0, infrastructure=True)
    tmp = os.path.realpath(tempfile.mkdtemp(prefix="verstehen-sandbox-"))
    uid = None
    if "process" in layers and os.geteuid() == 0:  # a uid of its own: no other run shares it
        uid = 3_000_000_000 + secrets.randbelow(1_000_000_000)  # above real users' ranges
        os.chown(tmp, uid, uid)
    nonce = secrets.token_hex(16).encode()
    walk = "parent" in layers
    try:
        job: Job = {
            "source": source, "entry": entry, "inputs": inputs, "tmpdir": tmp, "uid": uid,
            "layers": sorted(layers), "per_call_seconds": limits.per_call_seconds,
            "load_seconds": limits.load_seconds, "cpu_seconds": limits.cpu_seconds,
            "wall_seconds": limits.wall_seconds, "memory_bytes": limits.memory_bytes,
            "output_bytes": limits.output_bytes, "disk_bytes": limits.disk_bytes,
            "disk_files": limits.disk_files, "answer_bytes": limits.answer_bytes}
        data = json.dumps(job).encode()
        payload = b"%d\n" % len(data) + data + nonce
        env = dict(os.environ)
        if "process" in layers:
            env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": tmp, "TMPDIR": tmp}
        watch = (lambda: "disk limit exceeded" if _over_disk(tmp, limits) else None
                 ) if walk else None
        proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-B", str(_CHILD)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=tmp, env=env, start_new_session=True, close_fds=True,
        )
        with proc:
            try:
                out, err = _exchange(proc, payload, limits.output_bytes + 2**20,
                                     start + limits.wall_seconds, watch)
                if watch and (error := watch()):  # a last look: a fast bomb may end in 50 ms
                    raise _Abort(error)
            except _Abort as exc:
                busy = _starved(proc.pid, limits) if str(exc) == _WALL_CLOCK else None
                return SandboxResult(False, [], busy or str(exc), time.monotonic() - start,
                                     infrastructure=busy is not None)
            finally:  # the child has sent its report (it waits to be killed) or is past limits
                kill_run(proc, uid, tmp, walk)
                returncode = proc.wait()
    finally:
        remove_tree(tmp)
    seconds = time.monotonic() - start
    report = _report(out, nonce, len(inputs), layers)
    if report is None:
        return SandboxResult(False, [], _diagnose(returncode, err), seconds)
    if isinstance(report, str):
        return SandboxResult(False, [], report, seconds)
    ok, outputs, error, applied = report
    return SandboxResult(ok, outputs, error, seconds,
                         frozenset(applied) | ({"parent"} if walk else set()))
