"""Many replies decoded together: the in-process model's continuous batcher.

Each reply is a sequence in its own slot of one llama context (KV cache not unified: a slot's
tokens attend only to its own cells, so a step costs the same however long the others are).
A step is one `llama_decode` holding the last token of every live sequence; the weights are
read once per step for all of them instead of once per reply. A reply that ends frees its slot
and a waiting one joins before the next step (continuous batching; the largest token budget
first). A new prompt is evaluated whole, in its own decodes. Each sequence samples on its own:
greedily, or with its own seed and temperature through the sampler chain llama-cpp-python
builds for one reply.

A reply does not depend on what else is in the batch. llama.cpp's CPU matrix products compute
each output element in the same order for any number of rows but one, and flash attention
walks a slot's own cells in order; so the live sequences are kept in consecutive slots (llama.cpp
splits a decode at a gap in the sequence ids), a lone sequence is decoded beside a padding row,
and a prompt is never evaluated after a kept prefix (a different split of the prompt rounds
differently). Tested: replies alone, in batches of 4 and 16, in either order, greedy and
sampled, agree token for token.
"""

from __future__ import annotations

import itertools
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import llama_cpp
import llama_cpp._internals as internals
import llama_cpp.llama_cpp as low
import numpy as np

import verstehen.models.loops as loops  # looked up per call: tests replace the rule
from verstehen.errors import CallFailed
from verstehen.models.base import Completion, GenerateParams, Usage
from verstehen.models.local_batch import free_native

# llama-cpp-python's defaults for a sampled reply (create_chat_completion), kept so a reply at
# temperature > 0 is drawn the way the one-at-a-time path draws it
TOP_K, TOP_P, MIN_P, TYPICAL_P = 40, 0.95, 0.05, 1.0
PROMPT_CHUNK = 512  # prompt tokens per decode


@dataclass(eq=False)
class Request:
    """One reply to make: the prompt's tokens, its parameters, and where its outcome goes."""

    prompt: list[int]
    params: GenerateParams
    done: Callable[[Completion | Exception], None]
    cancelled: bool = False


@dataclass(eq=False)
class _Sequence:
    slot: int
    request: Request
    limit: int  # most tokens the reply may have (the request's max_tokens, or the slot's room)
    reply: list[int] = field(default_factory=list)
    sampler: Any = None  # a llama sampler chain at temperature > 0
    batch_index: int = 0  # where this sequence's logits are in the last decode
    finish: str | None = None


class BatchGenerator:
    """Continuous batching on its own llama context over a loaded model's weights.

    `submit` may be called from any thread; `run` (on the model's own thread) decodes until no
    sequence is live and nothing waits.
    """

    def __init__(self, llm: llama_cpp.Llama, *, slots: int, slot_tokens: int,
                 threads: Callable[[], int]) -> None:
        self._llm = llm
        self.slots = slots
        self.slot_tokens = slot_tokens
        self._threads = threads
        params = low.llama_context_params.from_buffer_copy(llm.context_params)
        # one slot more than sequences: a lone sequence's padding row may need it
        params.n_ctx = (slots + 1) * slot_tokens
        params.n_batch = max(PROMPT_CHUNK, slots + 1)
        params.n_ubatch = max(PROMPT_CHUNK, slots + 1)
        params.n_seq_max = slots + 1
        params.kv_unified = False  # each slot attends over its own cells only
        params.flash_attn_type = low.LLAMA_FLASH_ATTN_TYPE_ENABLED
        self._ctx = internals.LlamaContext(model=llm._model, params=params, verbose=False)
        self._memory = low.llama_get_memory(self._ctx.ctx)
        self._batch = internals.LlamaBatch(n_tokens=params.n_batch, embd=0, n_seq_max=1,
                                           verbose=False)
        self._vocab = llm._model.vocab
        self._n_vocab = llm.n_vocab()
        self._live: list[_Sequence] = []
        # the largest budgets start first: a reply that may run long should not start last
        self._waiting: queue.PriorityQueue[tuple[int, int, Request]] = queue.PriorityQueue()
        self._arrivals = itertools.count()
        self._lock = threading.Lock()
        self._running = False

    def submit(self, request: Request) -> bool:
        """Queue a request; True when no `run` is under way to take it (the caller starts one)."""
        with self._lock:
            self._waiting.put((-request.params.max_tokens, next(self._arrivals), request))
            start = not self._running
            self._running = True
            return start

    def run(self) -> None:
        """Decode until every queued request is answered."""
        try:
            while True:
                self._admit()
                if not self._live:
                    with self._lock:
                        if self._waiting.empty():
                            self._running = False
                            return
                    continue
                self._step()
        except BaseException as exc:
            self._fail_all(exc if isinstance(exc, Exception) else CallFailed(repr(exc)))
            with self._lock:
                self._running = False
            raise

    def _admit(self) -> None:
        """Start waiting requests in the free slots after the live ones."""
        while len(self._live) < self.slots:
            try:
                *_, request = self._waiting.get_nowait()
            except queue.Empty:
                return
            if request.cancelled:
                continue
            try:
                self._start(len(self._live), request)
            except CallFailed as exc:
                request.done(exc)

    def _start(self, slot: int, request: Request) -> None:
        """Evaluate the prompt in `slot` and sample its first token."""
        prompt = request.prompt
        room = self.slot_tokens - len(prompt)
        if room < 1:
            raise CallFailed(f"the prompt's {len(prompt)} tokens leave no room for a reply in "
                             f"the model's context of {self.slot_tokens} tokens")
        self._set_threads()
        # the whole prompt, in the same chunks whatever the slot held: llama.cpp's attention
        # takes another path for a few query rows than for many, so a prompt evaluated after a
        # kept prefix could round differently (with prefixes kept, 1 of 4 sampled test replies
        # changed)
        low.llama_memory_seq_rm(self._memory, slot, -1, -1)
        for start in range(0, len(prompt), PROMPT_CHUNK):
            chunk = prompt[start:start + PROMPT_CHUNK]
            last = start + len(chunk) == len(prompt)
            self._fill([(token, start + i, slot, last and i == len(chunk) - 1)
                        for i, token in enumerate(chunk)])
            self._decode()
        sequence = _Sequence(slot, request, min(request.params.max_tokens, room),
                             sampler=_sampler(request.params))
        sequence.batch_index = self._batch.batch.n_tokens - 1
        self._live.append(sequence)
        self._sample(sequence)
        self._compact()

    def _compact(self) -> None:
        """Move the live sequences into slots 0..n-1: llama.cpp splits a decode whose sequence
        ids are not consecutive into one pass over the weights per run of them."""
        n = len(self._live)
        gaps = sorted(set(range(n)) - {s.slot for s in self._live})
        movers = [s for s in self._live if s.slot >= n]
        for sequence, gap in zip(movers, gaps, strict=True):
            # the whole slot is copied (a stream of the KV cache), before the next decode
            low.llama_memory_seq_cp(self._memory, sequence.slot, gap, -1, -1)
            sequence.slot = gap
        self._live.sort(key=lambda s: s.slot)

    def _step(self) -> None:
        """One decode of every live sequence's last token, then each samples its next."""
        self._set_threads()
        rows = []
        for i, sequence in enumerate(self._live):
            position = len(sequence.request.prompt) + len(sequence.reply) - 1
            rows.append((sequence.reply[-1], position, sequence.slot, True))
            sequence.batch_index = i
        if len(rows) == 1:
            # llama.cpp multiplies a lone row by another kernel than several, which rounds
            # differently: a padding row in the next slot (sequence ids must be consecutive
            # for one pass) keeps the reply as it is in a batch
            low.llama_memory_seq_rm(self._memory, 1, -1, -1)
            rows.append((rows[0][0], 0, 1, True))
        self._fill(rows)
        self._decode()
        for sequence in list(self._live):
            self._sample(sequence)
        self._compact()

    def _sample(self, sequence: _Sequence) -> None:
        """The sequence's next token from its logits row; a finished sequence leaves."""
        request = sequence.request
        if request.cancelled:
            self._leave(sequence)
            return
        if loops.loops_at_end(sequence.reply):
            sequence.finish = "loop"
        else:
            if sequence.sampler is None:
                pointer = llama_cpp.llama_get_logits_ith(self._ctx.ctx, sequence.batch_index)
                row = np.ctypeslib.as_array(pointer, shape=(self._n_vocab,))
                token = int(np.argmax(row))
            else:
                token = low.llama_sampler_sample(sequence.sampler, self._ctx.ctx,
                                                 sequence.batch_index)
            if low.llama_vocab_is_eog(self._vocab, token):
                sequence.finish = "stop"
            else:
                sequence.reply.append(token)
                if request.params.stop and _stops(self._text(sequence.reply),
                                                  request.params.stop) is not None:
                    sequence.finish = "stop"
                elif len(sequence.reply) >= sequence.limit:
                    sequence.finish = "length"
        if sequence.finish is not None:
            self._leave(sequence)
            text = self._text(sequence.reply)
            if (cut := _stops(text, request.params.stop)) is not None:
                text = text[:cut]
            request.done(Completion(text, sequence.finish,
                                    Usage(len(request.prompt), len(sequence.reply))))

    def _leave(self, sequence: _Sequence) -> None:
        self._live.remove(sequence)
        if sequence.sampler is not None:
            low.llama_sampler_free(sequence.sampler)
            sequence.sampler = None

    def _text(self, tokens: list[int]) -> str:
        return self._llm.detokenize(tokens).decode("utf-8", errors="ignore")

    def _fill(self, rows: list[tuple[int, int, int, bool]]) -> None:
        batch = self._batch.batch
        batch.n_tokens = len(rows)
        for i, (token, pos, seq, logits) in enumerate(rows):
            batch.token[i] = token
            batch.pos[i] = pos
            batch.n_seq_id[i] = 1
            batch.seq_id[i][0] = seq
            batch.logits[i] = logits

    def _decode(self) -> None:
        status = low.llama_decode(self._ctx.ctx, self._batch.batch)
        if status != 0:
            raise CallFailed(f"llama_decode failed with status {status}")

    def _set_threads(self) -> None:
        threads = self._threads()
        if low.llama_n_threads(self._ctx.ctx) != threads:
            low.llama_set_n_threads(self._ctx.ctx, threads, threads)

    def _fail_all(self, error: Exception) -> None:
        for sequence in list(self._live):
            self._leave(sequence)
            sequence.request.done(error)
        while True:
            try:
                self._waiting.get_nowait()[-1].done(error)
            except queue.Empty:
                return

    def close(self) -> None:
        """Free the context and its batch."""
        for sequence in list(self._live):
            self._leave(sequence)
        free_native(self._batch)
        free_native(self._ctx)


def _stops(text: str, stops: tuple[str, ...]) -> int | None:
    """Where the first stop string begins in `text` (None when none occurs)."""
    found = [i for stop in stops if stop and (i := text.find(stop)) >= 0]
    return min(found) if found else None


def _sampler(params: GenerateParams) -> Any:
    """The chain llama-cpp-python builds for a sampled reply; None for a greedy one."""
    if params.temperature <= 0:
        return None
    chain = low.llama_sampler_chain_init(low.llama_sampler_chain_default_params())
    for step in (low.llama_sampler_init_top_k(TOP_K),
                 low.llama_sampler_init_typical(TYPICAL_P, 1),
                 low.llama_sampler_init_top_p(TOP_P, 1),
                 low.llama_sampler_init_min_p(MIN_P, 1),
                 low.llama_sampler_init_temp(params.temperature),
                 low.llama_sampler_init_dist(params.seed)):
        low.llama_sampler_chain_add(chain, step)
    return chain
