"""Many likelihood requests per llama_decode: the in-process model's batched scorer.

The requests' token paths (context, then each continuation but its last token) go into one
prefix tree, so a prompt template shared by many requests is evaluated once. The tree's leaves,
in depth-first order, are cut into groups that fit the scoring context; each group is one
decode, every leaf its own sequence, and a node shared by several leaves is one token that
belongs to all of their sequences (llama.cpp's unified KV cache stores it once). Logits are
read only where a continuation token is predicted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import llama_cpp
import llama_cpp._internals as internals
import llama_cpp.llama_cpp as low
import numpy as np

from verstehen.errors import UserError
from verstehen.models.base import split_trailing_space

# tokens evaluated per decode (the scoring context's KV size) and sequences per decode: past
# about a thousand tokens, attending over the whole batch costs more than the fewer calls save
GROUP_TOKENS = 1024
GROUP_SEQUENCES = 64
# requests the runner hands over per call: enough to share templates, few enough for progress
BATCH_REQUESTS = 256


def encode_pair(llm: Any, context: str, continuation: str) -> tuple[list[int], list[int]]:
    """Context and continuation tokens split the lm-evaluation-harness way."""
    context, continuation = split_trailing_space(context, continuation)
    add_bos = bool(llm._model.add_bos_token())

    def encode(text: str) -> list[int]:
        return llm.tokenize(text.encode("utf-8"), add_bos=add_bos, special=True) if text else []

    context_tokens = encode(context)
    whole = encode(context + continuation)
    if not context_tokens:  # nothing to condition on: start from the BOS (or EOS) token
        start = llm.token_bos() if llm.token_bos() >= 0 else llm.token_eos()
        return [start], whole[1:] if add_bos else whole
    return context_tokens, whole[len(context_tokens) :]


@dataclass
class _Node:
    token: int
    depth: int  # the token's position
    parent: int  # -1 at the root
    children: dict[int, int] = field(default_factory=dict)


@dataclass
class _Tree:
    """The prefix tree of every request's paths, and which predictions each request needs."""

    nodes: list[_Node] = field(default_factory=list)
    roots: dict[int, int] = field(default_factory=dict)
    # for every (request, continuation): the (node, next token) pairs whose log-probs it sums
    wanted: list[list[list[tuple[int, int]]]] = field(default_factory=list)

    def insert(self, path: Sequence[int]) -> list[int]:
        """Add a token path; the node of each of its tokens."""
        ids: list[int] = []
        parent = -1
        for depth, token in enumerate(path):
            children = self.roots if parent < 0 else self.nodes[parent].children
            node = children.get(token)
            if node is None:
                node = children[token] = len(self.nodes)
                self.nodes.append(_Node(token, depth, parent))
            ids.append(node)
            parent = node
        return ids

    def leaves_depth_first(self) -> list[int]:
        """Every leaf, depth-first: leaves that share long paths come out next to each other."""
        leaves: list[int] = []
        stack = list(reversed(self.roots.values()))
        while stack:
            node = stack.pop()
            children = self.nodes[node].children
            if not children:
                leaves.append(node)
            stack.extend(reversed(children.values()))
        return leaves

    def path(self, leaf: int) -> list[int]:
        """The nodes from the root to `leaf`."""
        nodes = []
        while leaf >= 0:
            nodes.append(leaf)
            leaf = self.nodes[leaf].parent
        return nodes[::-1]


@dataclass(frozen=True)
class _Group:
    """One decode: nodes in depth-first order, and the range of sequences each belongs to."""

    nodes: list[int]
    sequences: dict[int, range]


def _groups(tree: _Tree, max_tokens: int, max_sequences: int) -> list[_Group]:
    """Consecutive leaves cut into decodes of at most max_tokens nodes and max_sequences."""
    groups: list[_Group] = []
    nodes: list[int] = []
    first_leaf: dict[int, int] = {}
    last_leaf: dict[int, int] = {}
    n_leaves = 0

    def close() -> None:
        nonlocal nodes, first_leaf, last_leaf, n_leaves
        if nodes:
            groups.append(_Group(nodes, {n: range(first_leaf[n], last_leaf[n] + 1)
                                         for n in nodes}))
        nodes, first_leaf, last_leaf, n_leaves = [], {}, {}, 0

    for leaf in tree.leaves_depth_first():
        path = tree.path(leaf)
        new = [n for n in path if n not in first_leaf]
        if nodes and (len(nodes) + len(new) > max_tokens or n_leaves == max_sequences):
            close()
            new = path
        for n in path:
            first_leaf.setdefault(n, n_leaves)
            last_leaf[n] = n_leaves
        nodes.extend(new)
        n_leaves += 1
    close()
    return groups


class BatchScorer:
    """Scores (context, continuations) requests many at a time, on its own llama context
    beside the model's generation context (same weights, separate KV cache)."""

    def __init__(self, llm: Any, *, max_tokens: int = GROUP_TOKENS,
                 max_sequences: int = GROUP_SEQUENCES) -> None:
        self._llm = llm
        self.max_tokens = max_tokens
        self.max_sequences = max_sequences
        # the model's own context settings (RoPE scaling and the like)
        params = low.llama_context_params.from_buffer_copy(llm.context_params)
        params.n_ctx = max_tokens
        params.n_batch = max_tokens
        params.n_ubatch = min(512, max_tokens)
        params.n_seq_max = max_sequences
        params.kv_unified = True  # a token shared by several sequences is stored once
        params.flash_attn_type = low.LLAMA_FLASH_ATTN_TYPE_ENABLED  # measured 15% faster here
        self._ctx = internals.LlamaContext(model=llm._model, params=params, verbose=False)
        self._batch = internals.LlamaBatch(n_tokens=max_tokens, embd=0, n_seq_max=max_sequences,
                                           verbose=False)
        self._n_vocab = llm.n_vocab()

    def set_threads(self, threads: int) -> None:
        """Run the next decodes on this many threads."""
        if low.llama_n_threads(self._ctx.ctx) != threads:
            low.llama_set_n_threads(self._ctx.ctx, threads, threads)

    def score(self, requests: Sequence[tuple[str, Sequence[str]]],
              one_at_a_time: Callable[[str, Sequence[str]], list[float]]
              ) -> list[list[float] | Exception]:
        """log P(continuation | context) for every continuation of every request; a request
        longer than a group goes to `one_at_a_time`, and one that fails there gets its error
        in its place."""
        tree = _Tree()
        outcome: list[list[float] | Exception] = []
        too_long: list[int] = []
        for context, continuations in requests:
            encoded = [encode_pair(self._llm, context, c) for c in continuations]
            if any(len(ctx) + len(cont) - 1 > self.max_tokens for ctx, cont in encoded):
                too_long.append(len(outcome))
                outcome.append([])
                tree.wanted.append([])
                continue
            per_continuation: list[list[tuple[int, int]]] = []
            for context_tokens, continuation_tokens in encoded:
                ids = tree.insert(context_tokens + continuation_tokens[:-1])
                first = len(context_tokens) - 1
                per_continuation.append([(ids[first + k], token)
                                         for k, token in enumerate(continuation_tokens)])
            outcome.append([])
            tree.wanted.append(per_continuation)
        needed: dict[int, set[int]] = {}
        for per_request in tree.wanted:
            for pairs in per_request:
                for node, token in pairs:
                    needed.setdefault(node, set()).add(token)
        logprob: dict[tuple[int, int], float] = {}
        for group in _groups(tree, self.max_tokens, self.max_sequences):
            self._decode(tree, group, needed, logprob)
        for i, per_request in enumerate(tree.wanted):
            outcome[i] = [sum(logprob[pair] for pair in pairs) for pairs in per_request]
        for i in too_long:
            try:
                outcome[i] = one_at_a_time(*requests[i])
            except UserError as exc:
                outcome[i] = exc
        return outcome

    def _decode(self, tree: _Tree, group: _Group, needed: dict[int, set[int]],
                logprob: dict[tuple[int, int], float]) -> None:
        """Evaluate one group in one decode and keep the log-probs it was asked for."""
        low.llama_memory_clear(low.llama_get_memory(self._ctx.ctx), True)
        batch = self._batch.batch
        batch.n_tokens = len(group.nodes)
        rows: list[tuple[int, int]] = []  # (index in batch, node)
        for i, node in enumerate(group.nodes):
            info = tree.nodes[node]
            batch.token[i] = info.token
            batch.pos[i] = info.depth
            sequences = group.sequences[node]
            batch.n_seq_id[i] = len(sequences)
            for k, seq in enumerate(sequences):
                batch.seq_id[i][k] = seq
            wanted = node in needed and (node, next(iter(needed[node]))) not in logprob
            batch.logits[i] = wanted
            if wanted:
                rows.append((i, node))
        self._ctx.decode(self._batch)
        for i, node in rows:
            pointer = llama_cpp.llama_get_logits_ith(self._ctx.ctx, i)
            row = np.ctypeslib.as_array(pointer, shape=(self._n_vocab,)).astype(np.float64)
            top = row.max()
            norm = top + np.log(np.exp(row - top).sum())
            for token in needed[node]:
                logprob[(node, token)] = float(row[token] - norm)

    def close(self) -> None:
        """Free the scoring context and its batch."""
        free_native(self._batch)
        free_native(self._ctx)


def free_native(part: internals.LlamaContext | internals.LlamaBatch) -> None:
    """Free a llama.cpp context or batch now (its `close`)."""
    # llama-cpp-python leaves `close` unannotated: it takes nothing and returns None
    cast(Callable[[], None], part.close)()
