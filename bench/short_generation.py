"""Would batching short generations pay on the embedded model? Times N one-word classify
answers (greedy, a few tokens each) one at a time, as `LocalModel.generate` makes them
(llama-cpp-python reuses the KV cache's prefix shared with the previous prompt), against the
simplest batch: every chat prompt as its own sequence in one llama_decode, then one decode per
generated token with a token of every sequence. Prints both times and the ratio.

Run: python bench/short_generation.py [--answers 16] [--tokens 4]
"""

from __future__ import annotations

import argparse
import asyncio
import time

import llama_cpp
import llama_cpp._internals as internals
import llama_cpp.llama_cpp as low
import numpy as np

from verstehen.models import user
from verstehen.models.local import LocalModel


def question(i: int) -> str:
    """A classify item of the Potemkin kind."""
    return (f"Is the following an example of a Nash equilibrium? In game {i} the row player "
            f"gets {i} or {i + 1} and the column player {i + 2} or {i % 3}. Answer Yes or No.")


def batched_seconds(llm, prompts: list[list[int]], tokens: int) -> float:
    """Greedy answers of every prompt at once: one decode of all prompts, then one per token."""
    params = low.llama_context_params.from_buffer_copy(llm.context_params)
    total = sum(map(len, prompts))
    params.n_ctx = total + len(prompts) * tokens + 256
    params.n_batch = max(total, 512)
    params.n_seq_max = len(prompts)
    params.kv_unified = True
    ctx = internals.LlamaContext(model=llm._model, params=params, verbose=False)
    holder = internals.LlamaBatch(n_tokens=params.n_batch, embd=0, n_seq_max=1, verbose=False)
    batch, n_vocab = holder.batch, llm.n_vocab()
    started = time.perf_counter()
    rows, positions, n = {}, {}, 0
    for seq, prompt in enumerate(prompts):
        for pos, token in enumerate(prompt):
            batch.token[n], batch.pos[n], batch.n_seq_id[n] = token, pos, 1
            batch.seq_id[n][0], batch.logits[n] = seq, pos == len(prompt) - 1
            n += 1
        rows[seq], positions[seq] = n - 1, len(prompt)
    batch.n_tokens = n
    ctx.decode(holder)
    for _ in range(tokens):
        chosen = {seq: int(np.argmax(np.ctypeslib.as_array(
            llama_cpp.llama_get_logits_ith(ctx.ctx, row), shape=(n_vocab,))))
            for seq, row in rows.items()}
        for n, (seq, token) in enumerate(chosen.items()):
            batch.token[n], batch.pos[n], batch.n_seq_id[n] = token, positions[seq], 1
            batch.seq_id[n][0], batch.logits[n] = seq, True
            rows[seq] = n
            positions[seq] += 1
        batch.n_tokens = len(chosen)
        ctx.decode(holder)
    seconds = time.perf_counter() - started
    holder.close()
    ctx.close()
    return seconds


def main() -> int:
    """Time both ways; print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=16)
    parser.add_argument("--tokens", type=int, default=4)
    opts = parser.parse_args()
    model = LocalModel("smollm2-135m")
    llm = model._model()
    messages = [user(question(i)) for i in range(opts.answers)]
    started = time.perf_counter()
    for m in messages:
        llm.create_chat_completion(messages=m, temperature=0, max_tokens=opts.tokens)
    one_at_a_time = time.perf_counter() - started
    prompts = [llm.tokenize(asyncio.run(model.chat_text(m)).encode(), add_bos=False,
                            special=True) for m in messages]
    batched = batched_seconds(llm, prompts, opts.tokens)
    asyncio.run(model.aclose())
    print(f"{opts.answers} chat prompts ({sum(map(len, prompts))} tokens), {opts.tokens} greedy "
          f"tokens each, {llm.n_threads} threads")
    print(f"{'one at a time (as shipped)':28} {one_at_a_time:6.2f} s")
    print(f"{'one batch':28} {batched:6.2f} s   {one_at_a_time / batched:.1f}x "
          f"({'pays' if batched < one_at_a_time else 'does not pay'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
