"""The runner: every model call, through the cache, bounded, retried, counted."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import random
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

from verstehen.engine.batching import LogprobBatcher
from verstehen.engine.cache import (
    Cache,
    CacheUnwritable,
    GenerateRequest,
    LogprobsRequest,
    call_key,
)
from verstehen.engine.cache.values import (
    BadValue,
    CachedValue,
    GenerationValue,
    LogprobsValue,
    checked_generation,
    checked_logprobs,
    completion_value,
)
from verstehen.engine.connections import connection_cap
from verstehen.engine.progress import NullProgress
from verstehen.engine.usage import ModelUsage, tallies
from verstehen.errors import CallFailed, TransientError, UserError
from verstehen.models.base import (
    BatchLogprobs,
    Completion,
    GenerateParams,
    Message,
    Model,
    Noted,
    Pooled,
    Usage,
)
from verstehen.text.tables import plural

T = TypeVar("T")


@dataclass(slots=True)
class CallResult(Generic[T]):
    """One call's outcome: a value (a `Completion` from `generate`, the log-probabilities from
    `logprobs`), or the error that ended it after every attempt. Read `value` only when `ok`:
    after an error it is None."""

    value: T = None  # type: ignore[assignment]  # None only after an error: check `ok` first
    cached: bool = False
    error: str | None = None
    attempts: int = 0
    key: str = ""

    @property
    def ok(self) -> bool:
        """True when the call produced a value."""
        return self.error is None


@dataclass
class RetryPolicy:
    """Bounded attempts with full-jitter exponential backoff; Retry-After wins when longer."""

    max_attempts: int = 6
    base_delay: float = 0.5
    max_delay: float = 30.0
    max_retry_after: float = 300.0

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait before attempt `attempt + 1`."""
        backoff = rng.uniform(0, min(self.max_delay, self.base_delay * 2 ** (attempt - 1)))
        if retry_after is not None:
            return max(backoff, min(retry_after, self.max_retry_after))
        return backoff


def sample_seed(seed: int, sample_index: int) -> int:
    """The seed sent to the provider for sample `sample_index` (index 0 keeps `seed`)."""
    if sample_index == 0:
        return seed
    digest = hashlib.sha256(f"{seed}:{sample_index}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


# What a call asks the model, given its arguments: a plain function and a tuple, not a closure
# per call (4000 calls waiting for a slot each held one, and the garbage collector walked them)
Asker = Callable[..., Awaitable[CachedValue]]


async def _ask_generate(model: Model, messages: list[Message], params: GenerateParams
                        ) -> GenerationValue:
    return completion_value(await model.generate(messages, params))


def _check_generation(value: Any, args: tuple[Any, ...]) -> tuple[GenerationValue, bool]:
    return checked_generation(value)


def _check_logprobs(value: Any, args: tuple[Any, ...]) -> tuple[LogprobsValue, bool]:
    return checked_logprobs(value, len(args[2])), False  # args: model, context, continuations


# What a value must be, given the call's arguments: the value made storable and whether
# surrogates were replaced in it; BadValue otherwise
Checker = Callable[[Any, tuple[Any, ...]], tuple[Any, bool]]


def _endpoint(model: Model) -> tuple[tuple[str, str], ...]:
    """One endpoint per model identity: two servers of one model name are two endpoints."""
    return tuple(sorted(model.identity().items()))


@dataclass
class Runner:
    """Runs calls for procedures: cache first, then the provider under a per-model limit.

    Every value is checked (`cache.values`) before it is stored or returned. All calls at once
    stay within what the open-file limit allows (said once on stderr where that is less than
    asked). A cache write that fails on the disk (full, an I/O error) stops the run: no call
    is paid for after it, and each raises that OSError.
    """

    cache: Cache
    max_connections: int | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    progress: NullProgress = field(default_factory=NullProgress)
    usage: dict[str, ModelUsage] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # limits per identity: one endpoint shares a limit, two servers of one name do not
        self._limits: dict[tuple[tuple[str, str], ...], asyncio.Semaphore] = {}
        self._rng = random.Random()  # jitter only; never experiment randomness
        # calls under way by key: an identical call made meanwhile waits for the first one (the
        # futures of those waiting; None for most calls, which have none)
        self._inflight: dict[str, list[asyncio.Future[tuple[Any, str | None]]] | None] = {}
        # each model's endpoint key, by id (the model kept with it, so the id stays its own)
        self._endpoints: dict[int, tuple[Model, tuple[tuple[str, str], ...]]] = {}
        self._batchers: dict[tuple[tuple[str, str], ...], LogprobBatcher] = {}
        self._pooled: dict[str, Pooled] = {}  # models on several endpoints, by name
        self._noted: dict[str, Noted] = {}  # models that have notes, by name
        self._replaced: dict[str, int] = {}  # replies with lone surrogates, by model name
        self._cap = connection_cap()
        self._descriptors = contextlib.nullcontext() if self._cap is None else (
            asyncio.Semaphore(self._cap))
        self._capped = False  # said so once

    def connection_limit(self) -> int | None:
        """`max_connections` within what the open-file limit allows (None when not given)."""
        if self.max_connections is None or self._cap is None:
            return self.max_connections
        return min(self.max_connections, self._cap)

    async def generate(
        self,
        model: Model,
        messages: list[Message],
        params: GenerateParams | None = None,
        *,
        sample_index: int = 0,
    ) -> CallResult[Completion]:
        """A chat completion; at temperature > 0 each sample index is its own cache entry (so
        a second sample of one prompt needs `sample_index=1`, else it is the first one)."""
        params = params or GenerateParams()
        index = sample_index if params.temperature > 0 else 0
        request: GenerateRequest = {"messages": messages, "params": params.as_dict(),
                                    "sample": index}
        if model.capabilities.generation:
            request["generation"] = model.capabilities.generation
        key = call_key(model.identity(), "generate", request)
        sent = replace(params, seed=sample_seed(params.seed, index)) if index else params
        result = await self._through_cache(model, "generate", key, _ask_generate,
                                           (model, messages, sent), _check_generation)
        if not result.ok:
            return CallResult(error=result.error, attempts=result.attempts, key=result.key)
        stored = result.value
        completion = Completion(stored["text"], stored["finish_reason"],
                                Usage(**stored["usage"]), stored.get("reasoning"))
        for usage in self._tallies(model):
            usage.add(completion.usage, cached=result.cached)
        return CallResult(completion, result.cached, None, result.attempts, result.key)

    async def logprobs(self, model: Model, context: str, continuations: list[str]
                       ) -> CallResult[list[float]]:
        """Log-probabilities of continuations; UnsupportedCapability propagates."""
        request: LogprobsRequest = {"context": context, "continuations": continuations}
        if model.capabilities.scoring:
            request["scoring"] = model.capabilities.scoring
        batched = model.capabilities.logprobs_batch > 1 and isinstance(model, BatchLogprobs)
        key = call_key(model.identity(), "logprobs", request)
        # a batched call waits for the model's limit in the batcher, once per batch
        result = await self._through_cache(
            model, "logprobs", key, self._ask_logprobs, (model, context, continuations, batched),
            _check_logprobs, limited=not batched)
        if not result.ok:
            return CallResult(error=result.error, attempts=result.attempts, key=result.key)
        logprobs: list[float] = result.value["logprobs"]
        return CallResult(logprobs, result.cached, None, result.attempts, result.key)

    async def _ask_logprobs(self, model: Model, context: str, continuations: list[str],
                            batched: bool) -> LogprobsValue:
        if batched:
            return {"logprobs": await self._batcher(model).submit(context, continuations)}
        return {"logprobs": await model.logprobs(context, continuations)}

    def _tallies(self, model: Model) -> list[ModelUsage]:
        """The model's usage in this runner and in each tally the calling task counts into."""
        return [self._usage(model), *(tally.setdefault(model.name, ModelUsage())
                                      for tally in tallies())]

    def _usage(self, model: Model) -> ModelUsage:
        usage = self.usage.get(model.name)
        if usage is not None:
            return usage
        if isinstance(model, Noted):
            self._noted[model.name] = model
        return self.usage.setdefault(model.name, ModelUsage())

    def count_endpoints(self) -> None:
        """Copy each pooled model's per-endpoint counts, and each model's notes, into its usage
        (done when usage is read, not after every call)."""
        for name, model in self._pooled.items():
            if counts := model.endpoint_usage():
                self.usage.setdefault(name, ModelUsage()).endpoints = counts
        for name in self._noted.keys() | self._replaced.keys():
            notes = tuple(self._noted[name].notes()) if name in self._noted else ()
            if replaced := self._replaced.get(name):
                notes += (f"{plural(replaced, 'reply', 'replies')} held invalid UTF-16 "
                          "surrogates, replaced by U+FFFD",)
            if notes:
                self.usage.setdefault(name, ModelUsage()).notes = notes

    def _endpoint(self, model: Model) -> tuple[tuple[str, str], ...]:
        known = self._endpoints.get(id(model))
        if known is None:
            known = self._endpoints[id(model)] = (model, _endpoint(model))
        return known[1]

    def _batcher(self, model: Model) -> LogprobBatcher:
        endpoint = self._endpoint(model)
        if endpoint not in self._batchers:
            assert isinstance(model, BatchLogprobs)
            self._batchers[endpoint] = LogprobBatcher(model, self._limit(model),
                                                      model.capabilities.logprobs_batch)
        return self._batchers[endpoint]

    def _limit(self, model: Model) -> asyncio.Semaphore:
        endpoint = self._endpoint(model)
        if endpoint not in self._limits:
            if isinstance(model, Pooled):
                self._pooled[model.name] = model
            # max_connections is per endpoint: a model with several holds that many per replica
            replicas = getattr(model, "endpoint_count", 1)
            asked = (self.max_connections * replicas if self.max_connections
                     else model.max_connections)
            if self._cap is not None and asked > self._cap and not self._capped:
                self._capped = True
                print(f"verstehen: warning: at most {plural(self._cap, 'call')} at once, not "
                      f"{asked}: "
                      "the open-file limit (ulimit -n) leaves room for no more",
                      file=sys.stderr, flush=True)
            self._limits[endpoint] = asyncio.Semaphore(min(asked, self._cap or asked))
        return self._limits[endpoint]

    async def _through_cache(
        self,
        model: Model,
        kind: str,
        key: str,
        ask: Asker,
        args: tuple[Any, ...],
        check: Checker,
        *,
        limited: bool = True,
    ) -> CallResult[Any]:
        """The cached response under `key`, else `ask(*args)`'s (asked once however many wait for
        it), checked and stored before it is returned."""
        tallies = self._tallies(model)
        for usage in tallies:
            usage.calls += 1
        stored = self.cache.get(key)
        if stored is not None:
            try:
                stored, _ = check(stored, args)
            except BadValue:  # a row of a shape no call returns now: asked again, replaced
                self.cache.ignore(key)
                stored = None
        if stored is None and key in self._inflight:  # paid once, even when asked twice at once
            first = asyncio.get_running_loop().create_future()
            self._inflight[key] = [*(self._inflight[key] or ()), first]
            stored, error = await asyncio.shield(first)
            if error is not None:
                for usage in tallies:
                    usage.errors += 1
                self.progress.advance(cached=False, error=True)
                return CallResult(error=error, key=key)
        if stored is not None:
            for usage in tallies:
                usage.cache_hits += 1
            self.progress.advance(cached=True, error=False)
            return CallResult(stored, cached=True, key=key)
        self._inflight[key] = None
        try:
            result = await self._attempt(model, ask, args, check, limited=limited)
        except BaseException as exc:  # those waiting for this call end as it does
            for other in self._inflight.pop(key) or ():
                if isinstance(exc, Exception):
                    other.set_exception(exc)
                else:
                    other.cancel()
            raise
        for other in self._inflight.pop(key) or ():
            other.set_result((result.value, result.error))
        result.key = key
        if result.ok:  # never blocks the loop; a locked file keeps the result in memory
            await self.cache.store(key, model.name, kind, result.value)
            self.cache.raise_write_failure()
        else:
            for usage in tallies:
                usage.errors += 1
        self.progress.advance(cached=False, error=not result.ok)
        return result

    async def _attempt(
        self, model: Model, ask: Asker, args: tuple[Any, ...], check: Checker, *, limited: bool
    ) -> CallResult[Any]:
        limit = self._limit(model) if limited else contextlib.nullcontext()
        # a batched call holds no connection of its own (a batch holds the model's limit)
        descriptors = self._descriptors if limited else contextlib.nullcontext()
        for attempt in range(1, self.retry.max_attempts + 1):
            try:
                async with limit, descriptors:
                    self.cache.raise_write_failure()  # nothing more is paid for after one
                    value = await ask(*args)
                value, replaced = check(value, args)
                if replaced:
                    self._replaced[model.name] = self._replaced.get(model.name, 0) + 1
                return CallResult(value, attempts=attempt)
            except (UserError, CacheUnwritable):
                raise
            except TransientError as exc:
                if attempt == self.retry.max_attempts:
                    return CallResult(error=f"gave up after {plural(attempt, 'attempt')}: {exc}",
                                      attempts=attempt)
                self.progress.retry()
                await asyncio.sleep(self.retry.delay(attempt, exc.retry_after, self._rng))
            except CallFailed as exc:
                return CallResult(error=str(exc), attempts=attempt)
            except Exception as exc:  # a provider bug must not take the whole run down
                return CallResult(error=f"{type(exc).__name__}: {exc}", attempts=attempt)
        raise AssertionError("unreachable")

