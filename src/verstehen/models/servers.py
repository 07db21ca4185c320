"""What differs between OpenAI-compatible servers: their kind, and how each gives the
log-probabilities of a prompt's tokens.

- `vllm`: /v1/completions with `echo` and `logprobs`, plus vLLM's `prompt_logprobs` body
  parameter; each choice then has `prompt_logprobs`, one entry per prompt token: null for the
  first, then {token id: {logprob, rank, decoded_token}} holding the prompt's own token (first,
  or the one `prompt_token_ids` names) and the top alternatives.
- `llamacpp`: llama-cpp-python's server (`python -m llama_cpp.server`) echoes aligned prompt
  log-probabilities only when the prompt's first token is the model's BOS; for a model whose
  tokenizer does not add one, the BOS text is found once by probing and put first.
- `openai`: any other server; /v1/completions with `echo` and `logprobs` (the OpenAI form).

`auto` asks the server's /v1/models who owns the model: "vllm" is vLLM, "me" (llama-cpp-python)
or "llamacpp" is llama.cpp, anything else is `openai`. A server whose /v1/models lists models
but not the one asked for may answer with one of them (a llama.cpp server serves whatever it
loaded under any name): `warn_unlisted` says so once per (model, server).
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from verstehen.errors import CallFailed, UnsupportedCapability
from verstehen.models.remote import escape_controls
from verstehen.models.replies import kind_of, logprob, malformed, optional_logprob, optional_object

SERVER_KINDS = ("auto", "vllm", "llamacpp", "openai")
OWNERS = {"vllm": "vllm", "me": "llamacpp", "llamacpp": "llamacpp"}
# the BOS texts of common GGUF tokenizers (SmolLM2, Llama 2/Mistral, Llama 3, Gemma, Qwen)
BOS_CANDIDATES = ("<|im_start|>", "<s>", "<|begin_of_text|>", "<bos>", "<|endoftext|>",
                  "<|startoftext|>")
PROBE = "Hello"
LISTED_SHOWN = 5  # model names a warning shows before "and N more"
MAX_NAME_CHARS = 100
_warned: set[tuple[str, str]] = set()  # (model, server) pairs already warned about


def check_kind(kind: str | None) -> str:
    """The server kind named (None: auto); ValueError naming the kinds for another name."""
    kind = kind or "auto"
    if kind not in SERVER_KINDS:
        raise ValueError(f"server kind {kind!r} is not one of {', '.join(SERVER_KINDS)}")
    return kind


def kind_from_owners(owners: Sequence[object]) -> str:
    """The server kind its /v1/models listing shows (`owned_by` of each model)."""
    for owner in owners:
        if isinstance(owner, str) and owner in OWNERS:
            return OWNERS[owner]
    return "openai"


def unlisted_warning(server: str, model: str, listed: Sequence[object]) -> str | None:
    """The line saying that `server`'s /v1/models lists other models but not `model` (None
    when it lists `model`, or lists nothing). Ollama answers "name" with "name:latest". Names
    are compared and shown with control characters escaped (one line, whatever a server
    sends), each at most MAX_NAME_CHARS."""
    names = list(dict.fromkeys(_printable(n) for n in listed if isinstance(n, str) and n))
    asked = _printable(model)
    if not names or asked in names or f"{asked}:latest" in names:
        return None
    shown = ", ".join(names[:LISTED_SHOWN])
    if len(names) > LISTED_SHOWN:
        shown += f" and {len(names) - LISTED_SHOWN} more"
    return f"{server} lists {shown} but not {asked}; it may answer with another model"


def _printable(name: str) -> str:
    """A model name on one line: control characters, tab and newline escaped; cut short."""
    text = escape_controls(name).replace("\n", "\\n").replace("\t", "\\t")
    return text if len(text) <= MAX_NAME_CHARS else text[: MAX_NAME_CHARS - 3] + "..."


def warn_unlisted(server: str, model: str, listed: Sequence[object]) -> None:
    """Say `unlisted_warning` on stderr, once per (model, server) in this process."""
    line = unlisted_warning(server, model, listed)
    if line is not None and (model, server) not in _warned:
        _warned.add((model, server))
        print(f"verstehen: {line}", file=sys.stderr, flush=True)


def echo_tokens(choice: Mapping[str, Any]) -> tuple[list[str], list[float | None]] | None:
    """The echoed tokens and their log-probabilities (OpenAI's `logprobs` of a completion
    choice), or None when the server gave none; TransientError when they are not texts and
    finite log-probabilities <= 0 (or null), one per token."""
    logprobs = optional_object(choice.get("logprobs"), "the choice's logprobs")
    tokens, values = logprobs.get("tokens"), logprobs.get("token_logprobs")
    if not tokens or not values:
        return None
    if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
        raise malformed("logprobs.tokens is not a list of texts")
    if not isinstance(values, list) or len(values) != len(tokens):
        raise malformed(f"logprobs.token_logprobs is {kind_of(values)}, not one value for "
                        f"each of the {len(tokens)} tokens")
    return tokens, [optional_logprob(v, f"logprobs.token_logprobs[{i}]")
                    for i, v in enumerate(values)]


def vllm_prompt_tokens(choice: Mapping[str, Any], prompt: str
                       ) -> tuple[list[str], list[float | None]] | None:
    """The prompt's tokens and log-probabilities from vLLM's `prompt_logprobs` (None when the
    choice has none). A token's text is its `decoded_token`, else the echo's; the first token
    (which has no log-probability) is whatever of the prompt the others do not spell."""
    entries = choice.get("prompt_logprobs")
    if not isinstance(entries, list) or not entries:
        return None
    ids = choice.get("prompt_token_ids")
    ids = ids if isinstance(ids, list) and len(ids) == len(entries) else None
    echoed = echo_tokens(choice)
    echo = echoed[0] if echoed and len(echoed[0]) >= len(entries) else None
    texts: list[str | None] = []
    values: list[float | None] = []
    for i, entry in enumerate(entries):
        if not entry:
            texts.append(None)
            values.append(None)
            continue
        if not isinstance(entry, Mapping):
            raise malformed(f"vLLM prompt_logprobs entry {i} is {kind_of(entry)}, not an object")
        key = str(ids[i]) if ids is not None and str(ids[i]) in entry else next(iter(entry))
        item = entry[key]
        if not isinstance(item, Mapping) or item.get("logprob") is None:
            raise CallFailed(f"vLLM prompt_logprobs entry {i} has no logprob for its token")
        text = item.get("decoded_token")
        if not isinstance(text, str) and echo is not None and not echo[i].startswith("token_id:"):
            text = echo[i]
        texts.append(text if isinstance(text, str) else None)
        values.append(logprob(item["logprob"], f"vLLM prompt_logprobs entry {i}"))
    return _fill_first(texts, prompt), values


def _fill_first(texts: list[str | None], prompt: str) -> list[str]:
    """Texts with the first token's filled in from the prompt; CallFailed when another is
    unknown (its boundary could not be placed)."""
    if any(t is None for t in texts[1:]):
        raise CallFailed("vLLM gave no text for a prompt token: start it without "
                         "--return-tokens-as-token-ids, or let it echo")
    rest = "".join(t for t in texts[1:] if t is not None)
    first = texts[0]
    if first is None:
        first = prompt[: len(prompt) - len(rest)] if prompt.endswith(rest) else ""
    return [first, *(t for t in texts[1:] if t is not None)]


async def find_bos(complete: Callable[[str], Awaitable[tuple[list[str], int]]]) -> str:
    """The text to put before a prompt so that llama-cpp-python's server aligns its echoed
    log-probabilities ("" when the server puts a BOS first itself).

    `complete(prompt)` returns the echoed tokens (with the generated one) and the prompt tokens
    the usage counts. The BOS is the candidate the server counts but leaves out of the echo.
    Without a BOS first, the server's echo is one token short (it pairs each token with the
    scores of the position before), so an echo of the bare probe as long as the one after the
    BOS means the server put one there itself.
    """
    bare, counted = await complete(PROBE)
    for candidate in BOS_CANDIDATES:
        tokens, with_bos = await complete(candidate + PROBE)
        if with_bos == counted + 1 and tokens[:1] == bare[:1]:
            return "" if len(bare) == len(tokens) else candidate
    raise UnsupportedCapability(
        "the llama.cpp server's model has none of the BOS tokens "
        f"{', '.join(BOS_CANDIDATES)}, and its echoed log-probabilities are aligned only "
        "after one: give --server-kind openai and begin every context with the model's BOS")
