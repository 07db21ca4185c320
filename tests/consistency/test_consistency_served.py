"""`consistency` against the real llama.cpp server (llama-cpp-python's, on the embedded model):
its prompt log-probabilities pass the probe, so auto keeps the paper's likelihoods, and
`--answer-by generation` answers a whole run by chats instead. Nothing here depends on what
the 135M model writes: only on how each answer was asked for."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from verstehen.methods.consistency.procedure import answering_method
from verstehen.models.openai_api import OpenAIModel

from conftest import SHARED_DATA, needs_shared

CSQA = SHARED_DATA / "csqa" / "dev_rand_split.jsonl"
KB = SHARED_DATA / "conceptnet" / "csqa_dev_edges_14rel.tsv"

pytestmark = [pytest.mark.slow, needs_shared("csqa/dev_rand_split.jsonl",
                                             "conceptnet/csqa_dev_edges_14rel.tsv")]


def test_the_llamacpp_server_passes_the_probe(llama_server, capsys):
    """auto on a server that echoes prompt log-probabilities: likelihood, no fallback line."""
    async def method() -> str:
        model = OpenAIModel("smollm2", base_url=llama_server.url, timeout=60)
        try:
            return await answering_method(model, "auto")
        finally:
            await model.aclose()

    assert asyncio.run(method()) == "likelihood"
    assert "answering by generation" not in capsys.readouterr().err


def test_generation_is_forced_on_the_llamacpp_server(cli, llama_server):
    """`--answer-by generation` on the first dev question: every fact and the anchor asked by
    generation (five votes a fact), as run.json, the records and the summary say."""
    done = cli(["consistency", "--model", "openai/smollm2", "--base-url", llama_server.url,
                "--questions", str(CSQA), "--kb", str(KB), "--limit", "1", "--max-tokens", "4",
                "--resamples", "20", "--timeout", "120", "--answer-by", "generation",
                "--no-progress", "--json"])
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    run = Path(summary["run"])
    answered = [r for r in map(json.loads, (run / "records.jsonl").read_text().splitlines())
                if r["kind"] in ("fact", "anchor")]
    facts = [r for r in answered if r["kind"] == "fact"]
    assert facts and sum(r["kind"] == "anchor" for r in answered) == 1
    assert {r["method"] for r in answered} == {"generation"}
    assert all(r["combos"] is None and len(r["votes"]) == 5 for r in facts if not r["error"])
    assert summary["method"] == "generation"
    assert json.loads((run / "run.json").read_text())["config"]["answer_by"] == "generation"
