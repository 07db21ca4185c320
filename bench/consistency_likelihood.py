"""Likelihood speed of conceptual consistency on the embedded model: the same label scores
three ways, in one run on one machine.

  lm-eval hf   lm-evaluation-harness's `hf` backend: transformers reads the shipped GGUF's
               weights (fp32), batch 16; run by bench/lm_eval_reference.py in its own venv
  before       the path that shipped before batching: one prompt per evaluation on the
               quantized file, consecutive prompts sharing their opening in the KV cache
               (template-major order)
  now          what `verstehen consistency` runs: the runner hands the calls to the model in
               batches; each batch is one prefix tree evaluated a few groups per llama_decode
               on the f32 copy of the weights

The sample is every background fact of the first --questions CSQA dev questions (the facts
of neighbouring questions share concepts, as in a full run). Prints label scores per second,
the ratios with PASS/MISS against the targets (now >= 5x lm-eval hf, >= 3x before), the
projected time for the facts of 200 questions, and how far the ways' scores differ.

Run: python bench/consistency_likelihood.py [--questions 5] [--data ../shared/data]
     python bench/consistency_likelihood.py --questions 1 --no-reference   (a smoke run)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from verstehen.data.mcq import load_mcq
from verstehen.engine.cache import Cache
from verstehen.engine.runner import Runner
from verstehen.methods.consistency.knowledge import load_knowledge
from verstehen.methods.consistency.procedure import (
    ConsistencyPlan,
    _facts_by_likelihood,
    build_anchors,
    combo_contexts,
)
from verstehen.methods.consistency.templates import fact_question
from verstehen.models.local import LocalModel
from verstehen.models.local_scoring import score_continuations

HERE = Path(__file__).resolve().parent
FULL_QUESTIONS = 200


def requests_of(questions: dict[str, str]) -> list[tuple[str, list[str]]]:
    """The (prompt, labels) calls of the facts in the order the procedure sends them."""
    needs = {key: combo_contexts(q) for key, q in questions.items()}
    calls = sorted((j, q, key, context, labels) for key, q in questions.items()
                   for j, (context, labels) in enumerate(needs[key].items()))
    return [(context, labels) for *_, context, labels in calls]


def time_now(questions: dict[str, str]) -> tuple[float, dict[tuple[str, str], float]]:
    """Seconds of the procedure's own likelihood step (runner, batches, an empty cache) and
    every label score it computed."""
    scores: dict[tuple[str, str], float] = {}

    async def main() -> float:
        model = LocalModel("smollm2-135m")
        with tempfile.TemporaryDirectory() as folder:
            runner = Runner(Cache(Path(folder) / "calls.sqlite"))
            await model.logprobs_batch([("Warm up", [" the model"])])  # load, as `before` is
            started = time.perf_counter()
            await _facts_by_likelihood(runner, model, questions)
            seconds = time.perf_counter() - started
            for context, labels in requests_of(questions):  # read back from the cache
                result = await runner.logprobs(model, context, labels)
                scores.update(zip(((context, lb) for lb in labels), result.value, strict=True))
            runner.cache.close()
        await model.aclose()
        return seconds

    return asyncio.run(main()), scores


def time_before(requests: list[tuple[str, list[str]]]
                ) -> tuple[float, dict[tuple[str, str], float]]:
    """Seconds of the one-prompt-per-evaluation path on the quantized file, and its scores."""
    model = LocalModel("smollm2-135m")
    llm = model._model()
    started = time.perf_counter()
    out = [score_continuations(llm, context, labels) for context, labels in requests]
    seconds = time.perf_counter() - started
    asyncio.run(model.aclose())
    return seconds, {(c, lb): s for (c, labels), row in zip(requests, out, strict=True)
                     for lb, s in zip(labels, row, strict=True)}


def time_lm_eval(requests: list[tuple[str, list[str]]]
                 ) -> tuple[float, dict[tuple[str, str], float], str]:
    """Seconds of lm-eval's hf backend on the same label scores, its scores and versions."""
    pairs = [(context, label) for context, labels in requests for label in labels]
    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder) / "requests.jsonl"
        file.write_text("".join(json.dumps({"context": c, "continuation": lb}) + "\n"
                                for c, lb in pairs))
        done = subprocess.run([sys.executable, str(HERE / "lm_eval_reference.py"),
                               "--requests", str(file), "--batch-size", "16"],
                              capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"lm_eval_reference.py failed:\n{done.stderr[-2000:]}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    versions = ", ".join(f"{k} {v}" for k, v in out["versions"].items())
    return out["seconds"], dict(zip(pairs, out["scores"], strict=True)), versions


def compare(a: dict[tuple[str, str], float], b: dict[tuple[str, str], float],
            requests: list[tuple[str, list[str]]]) -> str:
    """Largest score difference, and how often the two pick the same label of a prompt."""
    worst = max(abs(a[k] - b[k]) for k in a)
    same = sum(max(labels, key=lambda lb: a[(c, lb)]) == max(labels, key=lambda lb: b[(c, lb)])
               for c, labels in requests)
    return f"largest difference {worst:.3f} nats; same likeliest label {same}/{len(requests)}"


def main() -> int:
    """Time the ways; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=5,
                        help="CSQA dev questions whose facts are scored (default 5)")
    parser.add_argument("--data", type=Path, default=HERE.parents[1] / "shared" / "data")
    parser.add_argument("--no-reference", action="store_true",
                        help="skip lm-eval (it installs torch into bench/.venv-lm-eval)")
    opts = parser.parse_args()
    items = load_mcq(opts.data / "csqa" / "dev_rand_split.jsonl")[:FULL_QUESTIONS]
    kb = load_knowledge(opts.data / "conceptnet" / "csqa_dev_edges_14rel.tsv")
    anchors = build_anchors(items, kb, ConsistencyPlan())
    all_facts = {f.key: f for a in anchors for f in a.facts}
    full_labels = sum(len(labels) for _, labels in
                      requests_of({k: fact_question(f) for k, f in all_facts.items()}))
    facts = {f.key: f for a in anchors[: opts.questions] for f in a.facts}
    questions = {key: fact_question(f) for key, f in facts.items()}
    requests = requests_of(questions)
    labels = sum(len(lb) for _, lb in requests)
    print(f"facts of the first {opts.questions} CSQA dev questions: {len(facts)} facts, "
          f"{len(requests)} prompts, {labels} label scores ({FULL_QUESTIONS} questions: "
          f"{len(all_facts)} facts, {full_labels} label scores)")

    ways: dict[str, tuple[float, dict[tuple[str, str], float]]] = {}
    if not opts.no_reference:
        seconds, scores, versions = time_lm_eval(requests)
        ways["lm-eval hf (batch 16)"] = (seconds, scores)
        print(f"lm-eval: {versions}")
    ways["before (one prompt per evaluation)"] = time_before(requests)
    ways["now (batched prefix trees, f32)"] = time_now(questions)

    print(f"{'way':36} {'seconds':>8} {'labels/s':>9} {f'{FULL_QUESTIONS} questions':>14}")
    for name, (seconds, _) in ways.items():
        print(f"{name:36} {seconds:8.1f} {labels / seconds:9.0f} "
              f"{full_labels / (labels / seconds) / 60:10.1f} min")
    now_seconds, now_scores = ways["now (batched prefix trees, f32)"]
    before_seconds, before_scores = ways["before (one prompt per evaluation)"]
    targets = [("now vs before", before_seconds / now_seconds, 3.0)]
    if "lm-eval hf (batch 16)" in ways:
        targets.insert(0, ("now vs lm-eval hf", ways["lm-eval hf (batch 16)"][0] / now_seconds,
                           5.0))
    for name, ratio, target in targets:
        print(f"{name:36} {ratio:8.1f}x  {'PASS' if ratio >= target else 'MISS'} "
              f"(target >= {target:.0f}x)")
    projected = full_labels / (labels / now_seconds) / 60
    print(f"{'facts of 200 questions, projected':36} {projected:8.1f} min  "
          f"{'PASS' if projected < 10 else 'MISS'} (target < 10 min)")
    print(f"now vs before: {compare(now_scores, before_scores, requests)}")
    if "lm-eval hf (batch 16)" in ways:
        print(f"now vs lm-eval: {compare(now_scores, ways['lm-eval hf (batch 16)'][1], requests)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
