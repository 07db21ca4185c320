"""Ending a reply that has fallen into a loop, for the in-process model.

Greedy decoding of a small model often repeats one sentence until the token cap: SmolLM2-135M
writes "The payoffs are a combination of the payoff for Player 1 and the payoff for Player 2."
a hundred times where a payoff matrix is asked. Once the last tokens are several exact copies
of one run of tokens, the reply says nothing new; `LoopStop` then makes the end-of-turn token
the only choice, so the reply ends there (its finish reason reads "loop") instead of at the cap,
which with the budgets that leave room for reasoning (1,024-2,048 tokens) would cost a minute a
reply on two cores. A loop is at least `MIN_COPIES` copies of its period spanning at least
`MIN_SPAN` tokens, so a poem's refrain or a matrix of equal cells is never cut.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

MIN_COPIES = 4
MIN_SPAN = 128  # tokens: about five repeats of a 25-token sentence
LOOP_RULE = f"end a loop of {MIN_COPIES}+ copies over {MIN_SPAN}+ tokens"  # in cache keys


def loops_at_end(tokens: Sequence[int] | np.ndarray, min_copies: int = MIN_COPIES,
                 min_span: int = MIN_SPAN) -> bool:
    """Whether the sequence ends with max(min_copies, ceil(min_span / p)) copies of its last
    p tokens, for some period p."""
    ids = np.asarray(tokens)
    n = ids.size
    if n < min_span:
        return False
    # a period p has ids[-1 - p] == ids[-1]; only those are checked
    candidates = n - 1 - np.flatnonzero(ids[:-1] == ids[-1])
    for p in np.sort(candidates):
        p = int(p)
        copies = max(min_copies, math.ceil(min_span / p))
        if copies * p > n:
            break
        tail = ids[n - copies * p:]
        if np.array_equal(tail[:-p], tail[p:]):
            return True
    return False


class LoopStop:
    """A llama.cpp logits processor: once the reply loops, only `end_token` can come next."""

    def __init__(self, end_token: int) -> None:
        self.end_token = end_token
        self.prompt_length: int | None = None
        self.fired = False

    def __call__(self, input_ids: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """Leave the scores alone, or force the end token when the reply so far loops."""
        if self.prompt_length is None:  # the first call sees the prompt alone
            self.prompt_length = len(input_ids)
        if self.fired or loops_at_end(input_ids[self.prompt_length:]):
            self.fired = True
            scores[:] = -np.inf
            scores[self.end_token] = 0.0
        return scores
