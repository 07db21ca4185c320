"""The supervisor: forks the runner, checks what it reports, frames the verdict with the nonce."""

from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING

from protocol import (
    NONCE_BYTES,
    PR_SET_CHILD_SUBREAPER,
    PR_SET_DUMPABLE,
    _collect,
    _prctl,
    _read_exact,
    _read_line,
    _verdict,
)
from runner import _runner

if TYPE_CHECKING:  # annotations only
    from verstehen.methods.certification.sandbox_child.messages import Job, Verdict


def main() -> None:
    """Supervisor: fork the runner, check what it reports, send the verdict framed by the nonce."""
    job: Job = json.loads(_read_exact(0, int(_read_line(0))))
    _prctl(PR_SET_CHILD_SUBREAPER, 1)  # orphans of the program stay below us, so the parent finds
    _prctl(PR_SET_DUMPABLE, 0)  # them; and nothing of ours can be opened through /proc/<pid>
    report_r, report_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            _runner(job, report_w, err_w)
        finally:
            os._exit(70)
    os.close(report_w)
    os.close(err_w)
    nonce = _read_exact(0, NONCE_BYTES)  # only now: the runner never had it in memory
    report, err, status = _collect(pid, report_r, err_r, int(job["output_bytes"]) + 65536)
    verdict: Verdict = {"ok": False, "outputs": [], "error": "output limit exceeded",
                        "layers": []}
    if report is not None:
        verdict = _verdict(report, len(job["inputs"]), status, err,
                           int(job["answer_bytes"]))
    data = json.dumps(verdict, allow_nan=False).encode()
    frame = memoryview(nonce + b" %d\n" % len(data) + data)
    while frame:
        frame = frame[os.write(1, frame):]
    os.close(1)
    os.close(2)
    # Stay until the parent kills us: orphans of the program are re-parented to us meanwhile.
    time.sleep(float(job["wall_seconds"]) + 5)
    os._exit(0)
