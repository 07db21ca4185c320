"""Likelihood speed of conceptual consistency's majority vote on the embedded model.

Each background fact is asked 35 ways (5 meta-prompts x 7 label pairs): 23 distinct prompts,
70 label scores. This times the same facts three ways, straight on the model (no cache):
  one label per evaluation  - every (prompt, label) scored on its own, the plain path
  shared, fact-major        - a prompt's one-token labels read from one evaluation, the facts'
                              prompts one fact after another
  shared, template-major    - the same, every fact's first prompt, then every fact's second
                              (what `verstehen consistency` sends): consecutive prompts share
                              their template's opening in the KV cache
and prints label scores per second, the speed-up, and the projected time for 200 CSQA dev
questions with the shared knowledge base, and the largest difference between the ways' scores
(llama.cpp's quantized kernels give slightly different numbers for different batch shapes: up to
a few tenths of a nat; measured 0.25 on 20 facts).

Run: python bench/consistency_likelihood.py [--facts 40] [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from verstehen.data.mcq import load_mcq
from verstehen.methods.consistency.knowledge import load_knowledge
from verstehen.methods.consistency.procedure import ConsistencyPlan, build_anchors, combo_contexts
from verstehen.methods.consistency.templates import fact_question
from verstehen.models.local import LocalModel, score_continuation, score_continuations
from verstehen.models.local_batch import BatchScorer


def timed(fn) -> tuple[float, list[float]]:
    """Wall seconds and the returned scores of fn()."""
    started = time.perf_counter()
    out = fn()
    return time.perf_counter() - started, out


def main() -> int:
    """Time the three ways; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=40)
    parser.add_argument("--data", type=Path,
                        default=Path(__file__).resolve().parents[2] / "shared" / "data")
    opts = parser.parse_args()
    items = load_mcq(opts.data / "csqa" / "dev_rand_split.jsonl")[:200]
    kb = load_knowledge(opts.data / "conceptnet" / "csqa_dev_edges_14rel.tsv")
    started = time.perf_counter()
    anchors = build_anchors(items, kb, ConsistencyPlan())
    extraction = time.perf_counter() - started
    facts = {f.key: f for a in anchors for f in a.facts}
    questions = [fact_question(f) for f in list(facts.values())[: opts.facts]]
    prompts = [combo_contexts(q) for q in questions]
    fact_major = [(c, labels) for p in prompts for c, labels in p.items()]
    template_major = [(c, labels) for j in range(len(prompts[0]))
                      for p in prompts for c, labels in [list(p.items())[j]]]
    pairs = sum(len(labels) for _, labels in fact_major)
    llm = LocalModel("smollm2-135m")._model()
    llm._ctx.kv_cache_seq_rm(0, 0, -1)
    llm.n_tokens = 0
    ways = {
        "one label per evaluation": lambda: [score_continuation(llm, c, label)
                                             for c, labels in fact_major for label in labels],
        "shared, fact-major": lambda: [s for c, labels in fact_major
                                       for s in score_continuations(llm, c, labels)],
        "shared, template-major": lambda: [s for c, labels in template_major
                                           for s in score_continuations(llm, c, labels)],
        "batched, prefix tree": lambda: [s for i in range(0, len(template_major), 256)
                                         for out in scorer.score(template_major[i : i + 256])
                                         for s in out],
    }
    scorer = BatchScorer(llm, threads=llm.n_threads)
    results = {name: timed(fn) for name, fn in ways.items()}
    reference = dict(zip([(c, lb) for c, labels in fact_major for lb in labels],
                         results["one label per evaluation"][1], strict=True))
    templated = dict(zip([(c, lb) for c, labels in template_major for lb in labels],
                         results["shared, template-major"][1], strict=True))
    worst = max(abs(templated[k] - v) for k, v in reference.items())
    base = results["one label per evaluation"][0]
    total_facts = len(facts)
    print(f"{len(anchors)} CSQA dev questions: {total_facts} distinct facts (extraction "
          f"{extraction:.2f} s); timed on {len(questions)} facts = {len(fact_major)} prompts, "
          f"{pairs} label scores")
    print(f"{'way':28} {'seconds':>8} {'labels/s':>9} {'speed-up':>9} {'200 questions':>14}")
    for name, (seconds, _) in results.items():
        projected = seconds / len(questions) * total_facts / 60
        print(f"{name:28} {seconds:8.1f} {pairs / seconds:9.0f} {base / seconds:8.1f}x "
              f"{projected:11.0f} min")
    print(f"largest score difference between the ways: {worst:.2e} nats")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
