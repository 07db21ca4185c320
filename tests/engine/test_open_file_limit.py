"""`--max-connections` within the open-file limit (issue 29, item 7): `ulimit -n 128` with
10,000,000 connections asked ended in "Too many open files" and failed calls; the runner now
holds no more calls at once than the limit leaves descriptors for, and says so once."""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
from pathlib import Path

from verstehen.engine.cache import Cache
from verstehen.engine.connections import connection_cap
from verstehen.engine.runner import Runner

from conftest import PYTHON

N = 300
SOFT_LIMIT = 128

LIMITED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_NOFILE, (int(sys.argv[1]), resource.getrlimit(
    resource.RLIMIT_NOFILE)[1]))
from verstehen.cli.main import main
sys.exit(main(sys.argv[2:]))
"""


def test_ten_million_connections_under_ulimit_128_all_succeed(stub_server, cli_env, tmp_path):
    server = stub_server(delay=0.2)  # replies slow enough that every call would be open at once
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("".join(f"question {i}\n" for i in range(1, N + 1)))
    done = subprocess.run(
        [PYTHON, "-c", LIMITED, str(SOFT_LIMIT), "batch", "openai/stub", str(prompts),
         "--base-url", server.url, "--max-connections", "10000000", "--no-progress"],
        env=cli_env, capture_output=True, text=True, timeout=300)
    assert "Too many open files" not in done.stderr and "Traceback" not in done.stderr, (
        done.stderr)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["records"] == N
    # (128 descriptors - 64 kept for the rest) / 2 a connection = 32, less what is already open
    said = re.findall(r"verstehen: warning: at most (\d+) calls at once, not 10000000: the "
                      r"open-file limit \(ulimit -n\) leaves room for no more", done.stderr)
    assert len(said) == 1 and 1 <= int(said[0]) < 32, done.stderr
    [folder] = Path(cli_env["VERSTEHEN_RUNS_DIR"]).iterdir()
    records = [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines()]
    assert len(records) == N and all(r["error"] is None for r in records)
    assert sorted(r["text"] for r in records) == sorted(f"echo: question {i}"
                                                        for i in range(1, N + 1))


def test_the_cap_follows_the_soft_limit_and_what_is_open(monkeypatch, cache_path):
    """1,064 descriptors, 100 open: (1064 - 100 - 64 kept) / 2 a connection = 450 connections;
    no limit at all: no cap, and max_connections stands as given."""
    monkeypatch.setattr(os, "listdir", lambda path: [str(n) for n in range(100)])
    monkeypatch.setattr(resource, "getrlimit", lambda which: (1064, 4096))
    assert connection_cap() == 450
    runner = Runner(Cache(cache_path), max_connections=10_000_000)
    assert runner.connection_limit() == 450
    assert Runner(runner.cache).connection_limit() is None  # none asked: each model's default
    monkeypatch.setattr(resource, "getrlimit",
                        lambda which: (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    assert connection_cap() is None
    assert Runner(runner.cache, max_connections=10_000_000).connection_limit() == 10_000_000
    runner.cache.close()
