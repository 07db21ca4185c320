"""End to end on real models: certify over HTTP, and with explanations on the embedded model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SHARED_DATA, Server, run_cli, shared_data

DATA = SHARED_DATA


def records_of(run: str) -> list[dict]:
    """The records of a run folder."""
    return [json.loads(line) for line in Path(run, "records.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_certify_mcq_over_http(cli_env: dict[str, str], llama_server: Server) -> None:
    """An mcq scope, asked through llama.cpp's OpenAI-compatible server."""
    arc = shared_data("arc/ARC-Easy/ARC-Easy-Dev.jsonl")
    done = run_cli(["certify", "--model", "openai/smollm2", "--base-url", llama_server.url,
                    "--scope", f"mcq:{arc}", "--questions", "8", "--rephrase", "0", "--json",
                    "--pg", "0.6", "--rid", "0.4"],  # 8 questions can certify at these
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
