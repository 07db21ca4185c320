"""Reasoning models end to end through the command line (in process): certify and audit an
o-series model behind a server that refuses max_tokens, and Claude with --reasoning-budget,
all against the documented stubs (`verstehen.testing.reasoning_stubs`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from verstehen.testing import reasoning_stubs as stubs
from verstehen.testing.stub_endpoints import StubEndpoints

from conftest import Cli, cli_error

# explicit flags, so that no default of certify or audit matters here
CERTIFY = ["certify", "--scope", "arithmetic/small", "--questions", "8", "--rephrase", "0",
           "--pg", "0.5", "--rid", "0.2", "--no-progress", "--json"]
AUDIT = ["audit", "--subject", "game-theory/pure-nash", "--max-questions", "16",
         "--first-look", "8", "--pg", "0.5", "--rid", "0.2", "--rephrase", "0",
         "--no-progress", "--json"]


def finished(done: Any, model: str) -> dict[str, Any]:
    """The usage of `model` in a run that ended in a verdict with no failed call."""
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr
    summary = json.loads(done.stdout)
    assert summary.get("failed_calls", 0) == 0
    usage = summary["usage"][model]
    assert usage["calls"] > 0 and usage["errors"] == 0
    return usage


def test_certify_and_audit_an_o_series_model_behind_a_server(cli: Cli) -> None:
    """`--model openai/o3-mini --base-url URL` on a server that refuses max_tokens: certify
    and audit end in verdicts, no call failed, every paid request carried the reasoning
    parameters, and the usage counts 300 reasoning tokens a paid call and says the
    temperature is fixed."""
    with StubEndpoints(1, route=stubs.o_series(reasoning_tokens=300)) as stub:
        remote = ["--model", "openai/o3-mini", "--base-url", stub.urls[0]]
        usage = finished(cli([*CERTIFY, *remote]), "openai/o3-mini")
        assert usage["new_reasoning_tokens"] == 300 * (usage["calls"] - usage["cache_hits"])
        assert any("fixed at 1" in line for line in usage["notes"])
        audited = finished(cli([*AUDIT, *remote]), "openai/o3-mini")
        assert audited["new_reasoning_tokens"] > 0
        answered = [b for b in stub.bodies[0] if "max_tokens" not in b]
    assert answered and all("temperature" not in b for b in answered)


def test_certify_claude_with_a_reasoning_budget(cli: Cli) -> None:
    """`--reasoning-budget 2048` on anthropic/: every request thinks with budget_tokens 2048
    within max_tokens = answer budget (at most --max-tokens 64) + 2048, sends no temperature,
    and the run records the budget in its model's identity."""
    with StubEndpoints(1, route=stubs.anthropic_thinking()) as stub:
        remote = ["--model", "anthropic/claude-test", "--base-url",
                  f"http://127.0.0.1:{stub.ports[0]}", "--reasoning-budget", "2048",
                  "--max-tokens", "64"]
        done = cli([*CERTIFY, *remote])
        finished(done, "anthropic/claude-test")
        bodies = stub.bodies[0]
    assert len(bodies) == 8
    for body in bodies:
        assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
        assert 2048 < body["max_tokens"] <= 2048 + 64 and "temperature" not in body
    run_dir = Path(json.loads(done.stdout)["run"])
    [identity] = json.loads((run_dir / "run.json").read_text())["models"]
    assert identity["reasoning_budget"] == "2048"


def test_a_thinking_budget_under_1024_is_one_line_from_the_cli(cli: Cli) -> None:
    """The CLI refuses it in one line, before any call; a negative budget fails parsing."""
    with StubEndpoints(1, route=stubs.anthropic_thinking()) as stub:
        remote = ["--model", "anthropic/claude-test", "--base-url",
                  f"http://127.0.0.1:{stub.ports[0]}"]
        done = cli([*CERTIFY, *remote, "--reasoning-budget", "100"])
        cli_error(cli, [*CERTIFY, *remote, "--reasoning-budget", "-1"], "--reasoning-budget")
        assert stub.bodies[0] == []
    # certify may warn about its budget first (a line of its own); the refusal is the last
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "at least 1024" in done.stderr.strip().splitlines()[-1]
