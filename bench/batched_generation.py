"""Batched generation on the embedded model, against its targets: all figures in one run.

1. The default audit from an empty cache, side by side: replies one at a time from the file as
   shipped (the path before batching, `LocalModel(batched=False)`) and batched (the default).
   Wall times (target: batched at most half), each audit's certification step (calls, tokens,
   completion tokens/s) and whether every verdict is the same.
2. The audit's certification prompts (its first look: 8 per target) on the batched path's
   weights, all at once and one at a time (`LocalModel(sequences=1)`): generation throughput
   (target: at least 2.5x) and, reply by reply, how many differ (target 0); how many differ from
   the replies before batching (part 1's 4-bit certification step: the bf16 change, with the
   character where each first differs) and the throughput against that step.
3. The ceiling: the same work (each prompt, then as many decode steps as its reply had tokens,
   16 sequences at a time, largest budget first) replayed through llama.cpp's low-level API
   with nothing of ours per token (target: batched at least 0.7 of it); and, for reference,
   llama.cpp's batched-bench procedure (16 prompts of 300 tokens, 128 generated each).
4. Under two competing CPU-bound processes: a batch of 16 replies against the same batch on an
   idle machine (target at most 3x), the thread policy adapting as usual.
5. One reply (what `verstehen ask` makes): the path `ask` uses, unchanged, against one reply on
   the batched path (why `ask` does not batch).

Run alone on an idle machine (about 30 minutes on two cores):
    python bench/batched_generation.py [--parts 1,2,3,4,5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

import llama_cpp._internals as internals
import llama_cpp.llama_cpp as low

import verstehen as vs
from verstehen.auditing.plan import make_plan
from verstehen.methods.certification.run import build_scopes
from verstehen.methods.certification.scopes.draw import question_at
from verstehen.models import GenerateParams, Message, user
from verstehen.models.local import LocalModel

MODEL = "smollm2-135m"
AUDIT_RATIO, THROUGHPUT_RATIO, CEILING_RATIO, LOAD_RATIO = 0.5, 2.5, 0.7, 3.0
Call = tuple[list[Message], GenerateParams]


def verdict(ok: bool) -> str:
    """PASS or MISS."""
    return "PASS" if ok else "MISS"


def certification_calls() -> list[Call]:
    """The default audit's first look: 8 questions per target, with the audit's budgets."""
    plan = make_plan()
    calls = []
    for scope in build_scopes([t.scope for t in plan.targets]):
        for i in range(plan.first_look):
            question = question_at(scope, plan.seed, i, None,
                                   all_phrasings=plan.phrasings == "all")
            tokens = plan.max_tokens or question.max_tokens or scope.answer_tokens
            calls.append((user(question.prompt), GenerateParams(0.0, tokens, plan.seed)))
    return calls


def timed_audit(model: LocalModel, folder: Path) -> tuple[float, dict]:
    """Wall seconds and summary of the default audit of `model` from an empty cache."""
    started = time.perf_counter()
    result = vs.audit(models=model, cache=folder / "calls.sqlite", runs_dir=folder / "runs",
                      progress=False)
    return time.perf_counter() - started, result.to_dict()


def certify_step(summary: dict) -> tuple[float, int, int, list[dict]]:
    """The audit's certification folder: seconds, calls, completion tokens and its records
    (its seconds overlap the other lenses')."""
    folder = Path(summary["runs"][0]["certify"])
    lens = json.loads((folder / "summary.json").read_text())
    usage = next(iter(lens["usage"].values()))
    records = [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines()]
    return lens["seconds"], usage["calls"], usage["completion_tokens"], records


def part_audit(folder: Path) -> dict:
    """Part 1: the two audits side by side."""
    before_model, after_model = LocalModel(MODEL, batched=False), LocalModel(MODEL)
    before, before_summary = timed_audit(before_model, folder / "before")
    after, after_summary = timed_audit(after_model, folder / "after")
    for model in (before_model, after_model):
        asyncio.run(model.aclose())
    same = [(a["key"], (a["verdict"] or {}).get("decision"), (b["verdict"] or {}).get("decision"))
            for a, b in zip(before_summary["targets"], after_summary["targets"], strict=True)]
    changed = [s for s in same if s[1] != s[2]]
    print(f"\n1. default audit from an empty cache ({len(same)} targets)")
    print(f"   one at a time (as shipped): {before:7.1f} s   batched: {after:7.1f} s   "
          f"ratio {after / before:.3f} (target <= {AUDIT_RATIO}) "
          f"{verdict(after <= AUDIT_RATIO * before)}")
    print(f"   verdicts changed: {len(changed)} of {len(same)}"
          + "".join(f"\n     {key}: {a} -> {b}" for key, a, b in changed))
    # the lenses run together, so a lens's seconds overlap the others': the whole audit's
    # completion tokens per wall second are each path's generation throughput on its work
    for name, seconds, summary in (("one at a time", before, before_summary),
                                   ("batched", after, after_summary)):
        usage = next(iter(summary["usage"].values()))
        print(f"   {name}: {usage['calls']} calls, {usage['completion_tokens']} completion "
              f"tokens = {usage['completion_tokens'] / seconds:.1f} tokens/s")
    _, _, _, records = certify_step(before_summary)
    usage = next(iter(before_summary["usage"].values()))
    return {"shipped": records, "shipped_rate": usage["completion_tokens"] / before}


async def one_at_a_time(model: LocalModel, calls: list[Call]) -> list[tuple[str, int, float]]:
    """Each reply asked after the last came back: text, completion tokens, seconds."""
    out = []
    for messages, params in calls:
        started = time.perf_counter()
        reply = await model.generate(messages, params)
        out.append((reply.text, reply.usage.completion_tokens, time.perf_counter() - started))
    return out


def first_difference(a: str, b: str) -> int:
    """Where two texts first differ (characters)."""
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                min(len(a), len(b)))


def part_throughput(calls: list[Call], audit: dict | None) -> tuple[list[int], float]:
    """Part 2: the prompts all at once and one at a time on the batched path's weights."""
    batched_model, solo_model = LocalModel(MODEL), LocalModel(MODEL, sequences=1)
    for model in (batched_model, solo_model):  # loaded before the clock starts
        asyncio.run(model.generate(user("hi"), GenerateParams(max_tokens=1)))

    async def together() -> list[tuple[str, int]]:
        done = await asyncio.gather(*(batched_model.generate(m, p) for m, p in calls))
        return [(c.text, c.usage.completion_tokens) for c in done]

    started = time.perf_counter()
    batched = asyncio.run(together())
    batched_seconds = time.perf_counter() - started
    started = time.perf_counter()
    solo = asyncio.run(one_at_a_time(solo_model, calls))
    solo_seconds = time.perf_counter() - started
    for model in (batched_model, solo_model):
        asyncio.run(model.aclose())
    completion = sum(tokens for _, tokens in batched)
    rate, solo_rate = completion / batched_seconds, sum(t for _, t, _ in solo) / solo_seconds
    print(f"\n2. the certification prompts ({len(calls)}) on the batched path's weights")
    print(f"   all at once (16 decoded together): {completion} completion tokens in "
          f"{batched_seconds:.1f} s = {rate:.1f} tokens/s")
    print(f"   one at a time: {solo_seconds:.1f} s = {solo_rate:.1f} tokens/s; ratio "
          f"{rate / solo_rate:.2f} (target >= {THROUGHPUT_RATIO}) "
          f"{verdict(rate >= THROUGHPUT_RATIO * solo_rate)}")
    differ = [i for i, ((text, _), (mine, _, _)) in enumerate(zip(batched, solo, strict=True))
              if text != mine]
    print(f"   replies that differ between all at once and one at a time: {len(differ)} of "
          f"{len(calls)} (target 0) {verdict(not differ)}")
    if audit is not None:
        shipped = {r["prompt"]: r["text"] for r in audit["shipped"] if r["kind"] == "answer"}
        pairs = [(i, shipped[m[0]["content"]], batched[i][0]) for i, (m, _) in enumerate(calls)
                 if m[0]["content"] in shipped]
        moved = [(i, first_difference(old, new)) for i, old, new in pairs if old != new]
        print(f"   replies that differ between the 4-bit path (before batching) and the bf16 "
              f"weights: {len(moved)} of {len(pairs)}; first differing character: "
              + ", ".join(f"#{i} at {at}" for i, at in moved))
        print(f"   the 4-bit path one at a time (part 1's audit before batching): "
              f"{audit['shipped_rate']:.1f} tokens/s; all at once here: "
              f"{rate / audit['shipped_rate']:.2f}x its tokens/s")
    return [tokens for _, tokens in batched], rate


def replay_seconds(llm, prompts: list[list[int]], lengths: list[int], budgets: list[int],
                   slots: int) -> float:
    """The work of a batched run replayed with llama.cpp alone: each prompt evaluated whole,
    then one decode per step with a token of every live sequence; no sampling."""
    params = low.llama_context_params.from_buffer_copy(llm.context_params)
    params.n_ctx, params.n_batch, params.n_ubatch = (slots + 1) * 4096, 512, 512
    params.n_seq_max, params.kv_unified = slots + 1, False
    params.flash_attn_type = low.LLAMA_FLASH_ATTN_TYPE_ENABLED
    ctx = internals.LlamaContext(model=llm._model, params=params, verbose=False)
    batch = internals.LlamaBatch(n_tokens=512, embd=0, n_seq_max=1, verbose=False)
    threads = os.cpu_count() or 1
    low.llama_set_n_threads(ctx.ctx, threads, threads)
    memory = low.llama_get_memory(ctx.ctx)

    def decode(rows: list[tuple[int, int, int, bool]]) -> None:
        b = batch.batch
        b.n_tokens = len(rows)
        for i, (token, pos, seq, logits) in enumerate(rows):
            b.token[i], b.pos[i], b.n_seq_id[i], b.logits[i] = token, pos, 1, logits
            b.seq_id[i][0] = seq
        ctx.decode(batch)

    order = sorted(range(len(prompts)), key=lambda i: -budgets[i])
    live: list[list[int]] = []  # [prompt index, tokens left, slot]
    started = time.perf_counter()
    while order or live:
        while order and len(live) < slots:
            i = order.pop(0)
            slot = len(live)
            low.llama_memory_seq_rm(memory, slot, -1, -1)
            for at in range(0, len(prompts[i]), 512):
                chunk = prompts[i][at:at + 512]
                decode([(t, at + k, slot, at + k == len(prompts[i]) - 1)
                        for k, t in enumerate(chunk)])
            if lengths[i] > 1:
                live.append([i, lengths[i] - 1, slot])
        if not live:
            continue
        rows = [(1000, len(prompts[i]) + lengths[i] - left - 1, slot, True)
                for i, left, slot in live]
        if len(rows) == 1:  # as the generator does: never a lone row
            low.llama_memory_seq_rm(memory, 1, -1, -1)
            rows.append((1000, 0, 1, True))
        decode(rows)
        for entry in live:
            entry[1] -= 1
        live = [entry for entry in live if entry[1] > 0]
        gaps = sorted(set(range(len(live))) - {entry[2] for entry in live})
        for entry, gap in zip([e for e in live if e[2] >= len(live)], gaps, strict=True):
            low.llama_memory_seq_cp(memory, entry[2], gap, -1, -1)
            entry[2] = gap
        live.sort(key=lambda entry: entry[2])
    seconds = time.perf_counter() - started
    batch.close()
    ctx.close()
    return seconds


def part_ceiling(calls: list[Call], lengths: list[int] | None, batched_rate: float | None) -> None:
    """Part 3: llama.cpp alone on the same work, and batched-bench's procedure."""
    model = LocalModel(MODEL)
    model._open_generator()
    llm, formatter = model._generating_llm, model._formatter
    prompts = [llm.tokenize(formatter(messages=m).prompt.encode(), add_bos=False, special=True)
               for m, _ in calls]
    print("\n3. ceiling: llama.cpp's own decodes, nothing of ours per token")
    if lengths is not None:
        seconds = replay_seconds(llm, prompts, lengths, [p.max_tokens for _, p in calls], 16)
        rate = sum(lengths) / seconds
        line = (f"   the certification work replayed: {sum(lengths)} tokens in {seconds:.1f} s "
                f"= {rate:.1f} tokens/s")
        if batched_rate is not None:
            ratio = batched_rate / rate
            line += (f"; batched step {batched_rate:.1f} tokens/s = {ratio:.2f} of it "
                     f"(target >= {CEILING_RATIO}) {verdict(ratio >= CEILING_RATIO)}")
        print(line)
    uniform = [list(range(1000, 1300)) for _ in range(16)]
    seconds = replay_seconds(llm, uniform, [128] * 16, [128] * 16, 16)
    prompt_seconds = replay_seconds(llm, uniform, [1] * 16, [1] * 16, 16)
    print(f"   batched-bench procedure (16 x 300 prompt tokens, 128 generated each): "
          f"S_TG {16 * 127 / (seconds - prompt_seconds):.1f} tokens/s, S_PP "
          f"{16 * 300 / prompt_seconds:.1f} tokens/s")
    asyncio.run(model.aclose())


def spin() -> None:
    """A CPU-bound competitor."""
    while True:
        pass


def batch_seconds(calls: list[Call]) -> float:
    """Seconds to answer `calls` all at once on a freshly loaded batched model."""
    async def go() -> float:
        model = LocalModel(MODEL, threads=None)
        await model.generate(user("hi"), GenerateParams(max_tokens=1))
        started = time.perf_counter()
        await asyncio.gather(*(model.generate(m, p) for m, p in calls))
        seconds = time.perf_counter() - started
        await model.aclose()
        return seconds
    return asyncio.run(go())


def part_load(calls: list[Call]) -> None:
    """Part 4: a batch of 16 replies with two CPU-bound processes beside it."""
    sample = [(m, GenerateParams(0.0, 128, p.seed)) for m, p in calls[::len(calls) // 16]][:16]
    idle = batch_seconds(sample)
    competitors = [multiprocessing.Process(target=spin, daemon=True) for _ in range(2)]
    for process in competitors:
        process.start()
    try:
        loaded = batch_seconds(sample)
    finally:
        for process in competitors:
            process.terminate()
    print(f"\n4. 16 replies (at most 128 tokens) at once: idle {idle:.1f} s, beside two "
          f"CPU-bound processes {loaded:.1f} s, ratio {loaded / idle:.2f} (target <= "
          f"{LOAD_RATIO}) {verdict(loaded <= LOAD_RATIO * idle)}")


def part_one_reply() -> None:
    """Part 5: one reply, as `verstehen ask` makes it, on both paths."""
    prompt, params = user("What is a Nash equilibrium?"), GenerateParams(max_tokens=256)
    seconds = {}
    for name, model in (("ask's path (as shipped, unchanged)", LocalModel(MODEL, batched=False)),
                        ("batched path, one sequence", LocalModel(MODEL, sequences=1))):
        asyncio.run(model.generate(user("hi"), GenerateParams(max_tokens=1)))
        started = time.perf_counter()
        reply = asyncio.run(model.generate(prompt, params))
        seconds[name] = time.perf_counter() - started
        asyncio.run(model.aclose())
        print(f"   {name}: {reply.usage.completion_tokens} tokens in {seconds[name]:.2f} s")
    print("\n5. one reply (verstehen ask): " + ", ".join(f"{k} {v:.2f} s"
                                                      for k, v in seconds.items()))


def main() -> int:
    """Run the chosen parts and print their figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="1,2,3,4,5")
    parser.add_argument("--smoke", action="store_true",
                        help="parts 2 and 3 on 4 prompts of 8 tokens: checks the script runs")
    opts = parser.parse_args()
    parts = {int(p) for p in opts.parts.split(",")}
    calls = certification_calls()
    if opts.smoke:
        parts, calls = {2, 3}, [(m, GenerateParams(0.0, 8, p.seed)) for m, p in calls[:4]]
    print(f"{os.cpu_count()} CPUs; {len(calls)} certification prompts "
          f"({sum(p.max_tokens == 2048 for _, p in calls)} with 2,048-token budgets)")
    audit, lengths = None, None
    with tempfile.TemporaryDirectory() as tmp:
        if 1 in parts:
            audit = part_audit(Path(tmp))
        rate = None
        if 2 in parts:
            lengths, rate = part_throughput(calls, audit)
        if 3 in parts:
            part_ceiling(calls, lengths, rate)
    if 4 in parts:
        part_load(calls)
    if 5 in parts:
        part_one_reply()
    return 0


if __name__ == "__main__":
    sys.exit(main())
