"""Exact log-probabilities one request at a time on a llama.cpp model, reusing the KV cache's
prefix shared with the previous evaluation (the batched scorer is `local_batch`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import llama_cpp
import numpy as np

from verstehen.errors import UserError
from verstehen.models.local_batch import encode_pair


def score_continuations(llm: Any, context: str, continuations: Sequence[str]) -> list[float]:
    """log P(continuation | context) for each continuation; the one-token continuations of a
    context share a single evaluation (a yes/no label costs no decode of its own)."""
    scores = [0.0] * len(continuations)
    one_token: dict[tuple[int, ...], list[tuple[int, int]]] = {}
    for i, continuation in enumerate(continuations):
        context_tokens, continuation_tokens = encode_pair(llm, context, continuation)
        if len(continuation_tokens) == 1:
            one_token.setdefault(tuple(context_tokens), []).append((i, continuation_tokens[0]))
        else:
            scores[i] = _score_tokens(llm, context_tokens, continuation_tokens)
    for context_key, wanted in one_token.items():
        _check_length(llm, len(context_key) + 1)
        last = len(context_key) - 1
        # evaluated with one label token after it, as scoring that label alone would: llama.cpp's
        # quantized kernels give slightly different logits for another batch shape
        tokens = [*context_key, wanted[0][1]]
        (row,) = _decode_with_logits(llm, tokens, last, last)
        log_probs = _log_softmax(row)
        for i, token in wanted:
            scores[i] = float(log_probs[token])
    return scores


def score_continuation(llm: Any, context: str, continuation: str) -> float:
    """log P(continuation | context), reusing the KV cache for a shared prefix."""
    return _score_tokens(llm, *encode_pair(llm, context, continuation))


def _check_length(llm: Any, n: int) -> None:
    if n > llm.n_ctx():
        raise UserError(f"{n} tokens exceed the model's context of {llm.n_ctx()}")


def _log_softmax(logits: np.ndarray) -> np.ndarray:
    x = logits.astype(np.float64)
    top = float(x.max())
    return x - (top + float(np.log(np.exp(x - top).sum())))


def _score_tokens(llm: Any, context_tokens: list[int], continuation_tokens: list[int]) -> float:
    if not continuation_tokens:
        return 0.0
    tokens = context_tokens + continuation_tokens
    _check_length(llm, len(tokens))
    first = len(context_tokens) - 1  # logits here predict the first continuation token
    rows = _decode_with_logits(llm, tokens, first, len(tokens) - 2)
    return sum(float(_log_softmax(logits)[tokens[first + offset + 1]])
               for offset, logits in enumerate(rows))


def _decode_with_logits(llm: Any, tokens: list[int], first: int, last: int) -> list[np.ndarray]:
    """Evaluate `tokens`, returning the logits rows of positions first .. last."""
    cached = list(llm.input_ids[: llm.n_tokens])
    common = 0
    for a, b in zip(cached, tokens, strict=False):
        if a != b:
            break
        common += 1
    start = min(common, first)  # logits of earlier evaluations are not kept
    llm._ctx.kv_cache_seq_rm(0, start, -1)
    llm.n_tokens = start
    n_vocab = llm.n_vocab()
    rows: list[np.ndarray] = []
    batch = llm._batch.batch
    for chunk_start in range(start, len(tokens), llm.n_batch):
        chunk = tokens[chunk_start : chunk_start + llm.n_batch]
        batch.n_tokens = len(chunk)
        wanted = []
        for i, token in enumerate(chunk):
            pos = chunk_start + i
            batch.token[i] = token
            batch.pos[i] = pos
            batch.seq_id[i][0] = 0
            batch.n_seq_id[i] = 1
            batch.logits[i] = first <= pos <= last
            if first <= pos <= last:
                wanted.append(i)
        llm._ctx.decode(llm._batch)
        llm.input_ids[chunk_start : chunk_start + len(chunk)] = chunk
        llm.n_tokens = chunk_start + len(chunk)
        for i in wanted:
            pointer = llama_cpp.llama_get_logits_ith(llm._ctx.ctx, i)
            rows.append(np.ctypeslib.as_array(pointer, shape=(n_vocab,)).copy())
    return rows
