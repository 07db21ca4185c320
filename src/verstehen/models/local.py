"""The in-process provider: a GGUF model run by llama-cpp-python on the CPU."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import hashlib
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import llama_cpp
import llama_cpp.llama_cpp as low
from llama_cpp._utils import suppress_stdout_stderr
from llama_cpp.llama import LogitsProcessorList
from llama_cpp.llama_chat_format import ChatFormatter, Jinja2ChatFormatter, format_llama2

from verstehen.errors import UserError
from verstehen.models.base import (
    Capabilities,
    Completion,
    GenerateParams,
    Message,
    Usage,
    settle,
)
from verstehen.models.embedded import DEFAULT_SEQUENCES, EMBEDDED, embedded_path
from verstehen.models.local_batch import BATCH_REQUESTS, BatchScorer
from verstehen.models.local_generate import BatchGenerator, Request
from verstehen.models.local_scoring import score_continuations
from verstehen.models.loops import LOOP_RULE, LoopStop
from verstehen.models.threads import ThreadPolicy

if TYPE_CHECKING:
    from llama_cpp.llama_types import ChatCompletionRequestMessage

T = TypeVar("T")

GGUF_MAGIC = b"GGUF"
_digests: dict[tuple[str, int, int], str] = {}
_patch_lock = threading.Lock()


def resolve_path(model: str) -> Path:
    """The GGUF file behind `local/<model>`: an embedded name or a path."""
    if model in EMBEDDED:
        return embedded_path(model)
    path = Path(model).expanduser()
    if path.suffix.lower() != ".gguf":
        known = ", ".join(EMBEDDED)
        raise UserError(f"local model {model!r} is neither {known} nor a path to a .gguf file")
    if not path.is_file():
        raise UserError(f"GGUF file not found: {path} (check the path after local/)")
    try:
        with path.open("rb") as handle:
            magic = handle.read(4)
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None
    if magic != GGUF_MAGIC:
        raise UserError(f"{path} is not a GGUF file (it starts with {magic!r}, not "
                        f"{GGUF_MAGIC!r}): give local/ a model file in GGUF format")
    return path.resolve()


def file_digest(path: Path) -> str:
    """SHA-256 of a model file, computed once per file version and process."""
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _digests:
        with path.open("rb") as handle:
            _digests[key] = hashlib.file_digest(handle, "sha256").hexdigest()
    return _digests[key]


@contextlib.contextmanager
def without_extra_buffers() -> Iterator[None]:
    """Load with llama.cpp's extra buffer types (weight repacking, AMX) turned off.

    A native llama.cpp build compiled by GCC 12 crashes in its AMX path; without the extra
    buffer types every build runs, at a small cost in speed on CPUs that have AMX.
    """
    original = low.llama_model_default_params

    def params() -> Any:
        value = original()
        if hasattr(value, "use_extra_bufts"):
            value.use_extra_bufts = False
        return value

    with _patch_lock:
        low.llama_model_default_params = params
        try:
            yield
        finally:
            low.llama_model_default_params = original


def load_llama(path: Path, *, n_ctx: int = 4096, threads: int | None = None) -> Any:
    """A llama_cpp.Llama for the file, quiet and safe on every CPU build."""
    with without_extra_buffers():
        try:
            return llama_cpp.Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=threads or os.cpu_count() or 1,
                n_threads_batch=threads or os.cpu_count() or 1,
                verbose=False,
            )
        except ValueError as exc:  # llama.cpp refused the file (damaged, or an unknown arch)
            raise UserError(f"llama.cpp cannot load {path} ({exc}): is it a complete GGUF "
                            "model file of an architecture llama.cpp supports?") from None


# models up to this file size score likelihoods on an f32 copy (a 4-bit file grows about 6x)
# and decode batches on a bf16 copy
CONVERTED_MAX_FILE = 200_000_000


def set_threads(ctx: Any, threads: int) -> None:
    """Run a llama context's next evaluations on `threads` threads."""
    if low.llama_n_threads(ctx) != threads:
        low.llama_set_n_threads(ctx, threads, threads)


def weights_dir() -> Path:
    """Where converted weights are kept: ~/.cache/verstehen/weights (XDG_CACHE_HOME honoured)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "verstehen" / "weights"


def scoring_weights(path: Path, digest: str) -> Path:
    """An f32 copy of the GGUF's weights, made once (about a second for 135M parameters).

    Dequantizing a block (scale x integer + offset) into f32 keeps the weights (bit for bit for
    the embedded Q4_1 file, checked tensor by tensor); llama.cpp evaluates a prompt about twice
    as fast from them on the CPU as with its quantized kernels, which also round the
    activations to 8 bits.
    """
    return _converted_weights(path, digest, "f32", low.LLAMA_FTYPE_ALL_F32)


def generation_weights(path: Path, digest: str) -> Path:
    """A bf16 copy of the GGUF's weights (the format most models are trained in), made once.

    Each weight is the shipped one rounded to 8 significant bits (within 2^-8 of it, relative:
    far inside the 4-bit file's own rounding). A batched step reads half the bytes of f32, and
    on a CPU with AVX512-BF16 a prompt is evaluated 1.7x as fast (bench/batched_generation.py).
    """
    return _converted_weights(path, digest, "bf16", low.LLAMA_FTYPE_MOSTLY_BF16)


def _converted_weights(path: Path, digest: str, kind: str, ftype: int) -> Path:
    target = weights_dir() / f"{digest[:16]}-{kind}.gguf"
    if target.is_file():
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
        params = low.llama_model_quantize_default_params()
        params.ftype = ftype
        params.allow_requantize = True
        with suppress_stdout_stderr(disable=False):
            failed = low.llama_model_quantize(str(path).encode(), str(partial).encode(),
                                              ctypes.byref(params))
        if failed:
            partial.unlink(missing_ok=True)
            raise UserError(f"could not convert {path.name} to {kind}")
        os.replace(partial, target)  # atomic: a concurrent process sees all of it or none
    except OSError as exc:
        raise UserError(f"cannot write the {kind} copy of {path.name} in {target.parent}: "
                        f"{exc.strerror} (set XDG_CACHE_HOME to a writable folder)") from exc
    return target


class LocalModel:
    """A GGUF model in this process, run on a dedicated thread: replies decoded many at a time,
    likelihoods scored many requests per decode.

    `threads` fixes the thread count (else $VERSTEHEN_THREADS, else the cores other processes
    leave free, looked at before every call). A small quantized model scores likelihoods on an
    exactly dequantized f32 copy of its weights (`scoring_weights`) and decodes batches on a
    bf16 copy (`generation_weights`).
    `sequences` replies are decoded together (`local_generate.BatchGenerator`); with
    `batched=False` replies are made one at a time from the file as shipped (`verstehen ask`:
    one reply gains nothing from batching), under a cache identity of their own.
    """

    def __init__(self, model: str, *, n_ctx: int = 4096, threads: int | None = None,
                 batched: bool = True, sequences: int = DEFAULT_SEQUENCES) -> None:
        if sequences < 1:
            raise UserError(f"sequences must be at least 1, not {sequences}")
        self.name = f"local/{model}"
        self.path = resolve_path(model)
        self.converts_weights = self.path.stat().st_size <= CONVERTED_MAX_FILE
        self.batched = batched
        self.max_connections = sequences if batched else 1
        generation = LOOP_RULE
        if batched:
            weights = "bf16 weights" if self.converts_weights else "weights as shipped"
            generation = f"{LOOP_RULE}; decoded in batches, {weights}, flash attention"
        self.capabilities = Capabilities(generate=True, logprobs=True, note="in-process CPU",
                                         logprobs_batch=BATCH_REQUESTS,
                                         scoring="f32" if self.converts_weights else "",
                                         generation=generation)
        self.threads = ThreadPolicy(threads)
        self._n_ctx = n_ctx
        self._llm: Any = None
        self._scoring_llm: Any = None
        self._generating_llm: Any = None
        self._scorer: BatchScorer | None = None
        self._generator: BatchGenerator | None = None
        self._formatter: ChatFormatter | None = None
        self._decoding: asyncio.Future[None] | None = None
        self._identity: dict[str, str] | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="llama")

    def identity(self) -> dict[str, str]:
        """Provider, name and the weights' SHA-256 (hashed once per instance)."""
        if self._identity is None:
            self._identity = {"provider": "local", "model": self.name,
                              "sha256": file_digest(self.path)}
        return self._identity

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, fn, *args)

    def _model(self) -> Any:
        """The generating model, its thread count set for the call about to run."""
        if self._llm is None:  # loading first lets the thread policy look at the load meanwhile
            self._llm = load_llama(self.path, n_ctx=self._n_ctx, threads=self.threads.cores)
        set_threads(self._llm._ctx.ctx, self.threads.choose())
        return self._llm

    def _scoring_model(self) -> Any:
        """The model that scores likelihoods (the f32 copy, or the file as shipped), its thread
        count set for the call about to run."""
        if not self.converts_weights:
            return self._model()
        llm = self._copy("_scoring_llm", scoring_weights)
        set_threads(llm._ctx.ctx, self.threads.choose())
        return llm

    def _generating_model(self) -> Any:
        """The model whose weights the batched decoder reads (the bf16 copy, or the file as
        shipped); the decoder sets its own threads."""
        if not self.converts_weights:
            return self._llm if self._llm is not None else self._model()
        return self._copy("_generating_llm", generation_weights)

    def _copy(self, attribute: str, convert: Callable[[Path, str], Path]) -> Any:
        """A converted copy of the weights, loaded once into `attribute`."""
        if getattr(self, attribute) is None:
            weights = convert(self.path, self.identity()["sha256"])
            setattr(self, attribute, load_llama(weights, n_ctx=self._n_ctx,
                                                threads=self.threads.cores))
        return getattr(self, attribute)

    def _batch_scorer(self) -> BatchScorer:
        llm = self._scoring_model()
        if self._scorer is None:
            self._scorer = BatchScorer(llm)
        self._scorer.set_threads(low.llama_n_threads(llm._ctx.ctx))
        return self._scorer

    async def generate(self, messages: list[Message], params: GenerateParams) -> Completion:
        """Chat completion with the GGUF's own chat template; concurrent calls share decodes."""
        if not self.batched:
            return await self._run(self._generate, messages, params)
        if self._generator is None:
            await self._run(self._open_generator)
        generator = self._generator
        assert generator is not None and self._formatter is not None
        # tokenized here: the model's thread may be busy decoding the batch this one joins
        llm = self._generating_model()
        chat = self._formatter(messages=cast("list[ChatCompletionRequestMessage]",
                                             list(messages)))
        # as llama-cpp-python's chat completion tokenizes it
        prompt = llm.tokenize(chat.prompt.encode("utf-8"), add_bos=not chat.added_special,
                              special=True)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Completion] = loop.create_future()

        def done(outcome: Completion | Exception) -> None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits
                loop.call_soon_threadsafe(settle, future, outcome)

        request = Request(prompt, params, done)
        if generator.submit(request):
            self._decoding = loop.run_in_executor(self._executor, generator.run)
            self._decoding.add_done_callback(_retrieved)
        try:
            return await future
        except asyncio.CancelledError:
            request.cancelled = True
            raise

    def _open_generator(self) -> None:
        if self._generator is not None:
            return
        llm = self._generating_model()
        self._formatter = _chat_formatter(llm)
        self._generator = BatchGenerator(llm, slots=self.max_connections,
                                         slot_tokens=self._n_ctx, threads=self.threads.choose)

    def _generate(self, messages: list[Message], params: GenerateParams) -> Completion:
        llm = self._model()
        loop = LoopStop(llm.token_eos())
        out = llm.create_chat_completion(
            messages=list(messages),
            temperature=params.temperature,
            max_tokens=params.max_tokens,
            seed=params.seed,
            stop=list(params.stop) or None,
            logits_processor=LogitsProcessorList([loop]),
        )
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        return Completion(
            text=choice["message"]["content"] or "",
            finish_reason="loop" if loop.fired else choice.get("finish_reason"),
            usage=Usage(usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0)),
        )

    async def logprobs(self, context: str, continuations: list[str]) -> list[float]:
        """Exact sum of token log-probabilities of each continuation after the context."""
        return await self._run(self._logprobs, context, continuations)

    def _logprobs(self, context: str, continuations: Sequence[str]) -> list[float]:
        return score_continuations(self._scoring_model(), context, continuations)

    async def logprobs_batch(self, requests: Sequence[tuple[str, Sequence[str]]]
                             ) -> list[list[float] | Exception]:
        """`logprobs` of many requests in a few decodes; a request that cannot be scored gets
        its error in its place."""
        return await self._run(lambda: self._batch_scorer().score(requests, self._logprobs))

    async def chat_text(self, messages: list[Message]) -> str | None:
        """The conversation in the GGUF's own chat template, open for the model's turn; None
        when the file has no template (base models)."""
        return await self._run(self._chat_text, messages)

    def _chat_text(self, messages: list[Message]) -> str | None:
        llm = self._model()
        if not llm.metadata.get("tokenizer.chat_template"):
            return None
        # each Message is one of llama_cpp's per-role message TypedDicts (role and text only);
        # the type checker cannot match a TypedDict with a union of them
        chat = cast("list[ChatCompletionRequestMessage]", list(messages))
        return _chat_formatter(llm)(messages=chat).prompt

    async def aclose(self) -> None:
        """Free the model and its thread."""
        for attribute in ("_scorer", "_generator"):
            if (part := getattr(self, attribute)) is not None:
                await self._run(part.close)
                setattr(self, attribute, None)
        for attribute in ("_llm", "_scoring_llm", "_generating_llm"):
            if (llm := getattr(self, attribute)) is not None:
                await self._run(llm.close)
                setattr(self, attribute, None)
        self._executor.shutdown(wait=False)


def _chat_formatter(llm: Any) -> ChatFormatter:
    """The GGUF's own chat template as llama-cpp-python renders it for a chat completion, or
    its fallback (llama-2's format) for a file without one."""
    template = llm.metadata.get("tokenizer.chat_template")
    if not template:
        # llama-cpp-python's untyped registering decorator hides the function's own signature
        return cast(ChatFormatter, format_llama2)

    def text(token: int) -> str:
        return llm._model.token_get_text(token) if token != -1 else ""

    return Jinja2ChatFormatter(template=template, eos_token=text(llm.token_eos()),
                               bos_token=text(llm.token_bos()))


def _retrieved(decoding: asyncio.Future[None]) -> None:
    """Read a finished decoding loop's exception (its requests have it already)."""
    if not decoding.cancelled():
        decoding.exception()
