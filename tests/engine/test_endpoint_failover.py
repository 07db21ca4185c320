"""A batch over 4 replicas of one model survives one of them going away mid-run.

`verstehen batch` (in this process) sends 600 prompts to 4 stub endpoints, 4 calls at most on
each; endpoint 2 dies (port closed, connections reset unanswered) on its 40th request. The run
must end with every record, each answered once; no prompt may be paid twice except those in
flight on the dead endpoint when it died (at most its limit), as the stubs count them.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from verstehen.testing.stub_endpoints import StubEndpoints

from conftest import Cli

N, LIMIT, DEAD, DIES_AT = 600, 4, 2, 40


def test_batch_over_four_endpoints_loses_one_midway(cli: Cli, tmp_path: Path) -> None:
    """Every record, none paid twice beyond the dead endpoint's calls in flight."""
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("".join(f"question {i}\n" for i in range(1, N + 1)))
    with StubEndpoints(4, delay=0.005, kill_after={DEAD: DIES_AT}) as stubs:
        urls = stubs.urls
        flags = [a for url in urls for a in ("--base-url", url)]
        done = cli(["batch", "openai/stub", str(prompts), *flags, "--no-progress",
                    "--max-connections", str(LIMIT), "--timeout", "5"])
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        folder = Path(result["run"])
        resumed = cli(["batch", "--resume", str(folder), *flags, "--no-progress"])
        received = [Counter(stubs.received[i]) for i in range(4)]
        peaks, killed = list(stubs.peak), set(stubs.killed)

    assert killed == {DEAD}
    assert (result["records"], result["expected"], result["errors"]) == (N, N, 0)
    rows = [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines()]
    assert Counter(r["id"] for r in rows) == Counter(str(i) for i in range(1, N + 1))
    assert all(r["text"] == f"echo: question {r['id']}" for r in rows)

    paid = sum(received, Counter())
    twice = {p: n for p, n in paid.items() if n > 1}
    assert set(paid) == {f"question {i}" for i in range(1, N + 1)}
    assert 1 <= len(twice) <= LIMIT and set(twice.values()) <= {2}  # the 40th, at least
    assert all(received[DEAD][p] == 1 for p in twice)  # only the dead one's calls in flight
    assert sum(paid.values()) == N + len(twice)
    assert DIES_AT <= sum(received[DEAD].values()) <= DIES_AT + LIMIT - 1
    assert max(peaks) <= LIMIT

    endpoints = result["usage"]["openai/stub"]["endpoints"]
    assert [e["url"] for e in endpoints] == urls
    live = [i for i in range(4) if i != DEAD]
    assert [endpoints[i]["calls"] for i in live] == [sum(received[i].values()) for i in live]
    assert all(endpoints[i]["errors"] == 0 and endpoints[i]["downs"] == 0 for i in live)
    assert endpoints[DEAD]["downs"] == 1 and endpoints[DEAD]["errors"] >= 3
    assert sum(endpoints[i]["calls"] for i in live) >= N - DIES_AT

    info = json.loads((folder / "run.json").read_text())
    assert info["config"]["base_url"] == urls
    assert info["models"][0]["base_url"] == " ".join(sorted(urls))
    # the resume reads the list back from run.json; nothing is left to ask
    assert resumed.returncode == 0, resumed.stderr
    assert "0 calls to make" in resumed.stderr
