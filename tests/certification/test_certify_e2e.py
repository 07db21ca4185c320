"""End to end on real models: `verstehen audit` on the embedded model, certify over HTTP."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SHARED_DATA, Server, run_cli

DATA = SHARED_DATA


def records_of(run: str) -> list[dict]:
    """The records of a run folder."""
    return [json.loads(line) for line in Path(run, "records.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_audit_embedded_model_end_to_end(cli_env: dict[str, str]) -> None:
    """Both built-in scopes get a verdict with bounds; a rerun is answered from the cache."""
    args = ["audit", "--max-questions", "32", "--rephrase", "2", "--json"]
    done = run_cli(args, cli_env, timeout=600)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["model"] == "local/smollm2-135m"
    assert [s["scope"] for s in summary["scopes"]] == ["arithmetic/small", "arithmetic"]
    records = records_of(summary["run"])
    for scope in summary["scopes"]:
        verdict = scope["verdict"]
        assert verdict["decision"] in {"understands", "does_not_understand", "inconclusive"}
        assert verdict["n"] in verdict["details"]["checkpoints"]
        assert verdict["score_lower"] <= verdict["mean_score"] <= verdict["score_upper"]
        answers = [r for r in records if r["scope"] == scope["scope"] and r["kind"] == "answer"]
        assert len(answers) == verdict["n"] == scope["asked"]
        mean = sum(r["score"] for r in answers) / len(answers)
        assert mean == pytest.approx(verdict["mean_score"])
        assert sum(scope["outcomes"].values()) == len(answers)
    assert Path(summary["run"], "summary.json").is_file()

    again = run_cli(args, cli_env, timeout=600)
    usage = json.loads(again.stdout)["usage"]["local/smollm2-135m"]
    assert usage["calls"] == usage["cache_hits"] > 0
    assert json.loads(again.stdout)["scopes"] == summary["scopes"]


@pytest.mark.slow
def test_audit_table_in_words(cli_env: dict[str, str]) -> None:
    """Without --json: the table header, one row per scope, each verdict in words."""
    done = run_cli(["audit", "--scope", "arithmetic/small", "--max-questions", "16",
                    "--rephrase", "0", "--no-progress"], cli_env, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "mean score [L, U]" in done.stdout
    assert done.stdout.count("arithmetic/small") >= 2
    assert any(word in done.stdout for word in (
        "UNDERSTANDS at", "DOES NOT UNDERSTAND at", "INCONCLUSIVE at"))


@pytest.mark.slow
def test_certify_mcq_over_http(cli_env: dict[str, str], llama_server: Server) -> None:
    """An mcq scope, asked through llama.cpp's OpenAI-compatible server."""
    arc = DATA / "arc" / "ARC-Easy" / "ARC-Easy-Dev.jsonl"
    if not arc.is_file():
        pytest.skip(f"shared data not found at {arc}")
    done = run_cli(["certify", "--model", "openai/smollm2", "--base-url", llama_server.url,
                    "--scope", f"mcq:{arc}", "--questions", "8", "--rephrase", "0", "--json"],
                   cli_env, timeout=600)
    assert done.returncode == 0, done.stderr
    scope = json.loads(done.stdout)["scopes"][0]
    assert scope["verdict"]["n"] == 8
    records = records_of(json.loads(done.stdout)["run"])
    assert len(records) == 8
    assert all(r["expected"] in "ABCDE" and r["text"] is not None for r in records)


@pytest.mark.slow
def test_certify_with_explanations_on_the_embedded_model(cli_env: dict[str, str]) -> None:
    """The model is asked for one program per operation; each reply is judged and recorded."""
    done = run_cli(["certify", "--scope", "arithmetic", "--questions", "8", "--explanations",
                    "--program-questions", "50", "--rid", "0.01", "--json"], cli_env,
                   timeout=600)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    scope = summary["scopes"][0]
    records = records_of(summary["run"])
    explanations = {r["family"]: r for r in records if r["kind"] == "explanation"}
    assert set(explanations) == {"+", "-", "*", "/"}
    offered = sorted(f for f, r in explanations.items() if r["offered"])
    assert scope["explained_families"] == offered
    for record in explanations.values():
        assert record["offered"] == (record["reason"] is None)
        if record["offered"]:
            assert record["questions"] == 50 and 0 <= record["mean_score"] <= 1
    components = scope["verdict"]["details"]["components"]
    assert sum(c["p"] for c in components) == pytest.approx(1.0)
    asked = [r for r in records if r["kind"] == "answer"]
    assert len(asked) == (8 if len(offered) < 4 else 0)
    assert all(r["family"] not in offered for r in asked)
