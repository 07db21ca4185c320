"""Stand-ins for reasoning models' APIs, behaving as their documentation and their real error
replies say, as routes for `testing.stub_endpoints.StubEndpoints(route=...)`.

- `o_series`: OpenAI's o1/o3/o4-mini/gpt-5 on /chat/completions. `max_tokens` is refused
  (400, param `max_tokens`, code `unsupported_parameter`), so is any temperature but 1 (400,
  param `temperature`, code `unsupported_value`); the hidden reasoning counts in
  `max_completion_tokens`, so a cap it reaches while reasoning leaves the content empty with
  `finish_reason: "length"`; `usage.completion_tokens_details.reasoning_tokens` says how many.
- `reasoning_parser`: vLLM or SGLang started with a reasoning parser: the usual chat
  parameters, the reasoning apart in `message.reasoning_content` (newer vLLM: `reasoning`),
  counted with the answer in `max_tokens`.
- `anthropic_thinking`: Anthropic's /v1/messages with extended thinking: budget_tokens of at
  least 1024 and below max_tokens, temperature 1 or unset, no top_k, top_p unset or in
  [0.95, 1]; refusals in Anthropic's error shape; the reply's thinking block (with a
  signature), optionally a redacted_thinking block, then the text; `stop_reason: max_tokens`
  when the cap cuts it.

A token is a word here. The answer is any function of the last message ("ANSWER: Yes" by
default).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import NotRequired, TypedDict

from verstehen.testing.stub_endpoints import prompt_of

Answer = Callable[[str], str]
Route = Callable[[int, str, str, dict], Awaitable[tuple[int, dict] | None]]
ANSWER = "ANSWER: Yes"
# Anthropic's documentation of the limits its messages below cite
THINKING_DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"


def fixed_answer(prompt: str) -> str:
    """The same answer to every prompt."""
    return ANSWER


def thoughts(n: int) -> str:
    """A reasoning text of `n` tokens."""
    return " ".join(f"thought{k}" for k in range(n))


def _tokens(text: str) -> int:
    return len(text.split())


def _prompt_tokens(payload: dict) -> int:
    messages = payload.get("messages") or []
    system = payload.get("system") or ""
    return _tokens(system if isinstance(system, str) else "") + sum(
        _tokens(str(m.get("content", ""))) for m in messages if isinstance(m, dict))


def _spend(cap: int | None, reasoning: int, answer: str) -> tuple[int, str, bool]:
    """Reasoning tokens used, the answer text left, and whether the cap cut the reply."""
    if cap is not None and cap <= reasoning:
        return cap, "", True
    words = answer.split()
    room = len(words) if cap is None else cap - reasoning
    return reasoning, " ".join(words[:room]) if room < len(words) else answer, room < len(words)


def openai_error(message: str, param: str, code: str) -> dict:
    """OpenAI's error body."""
    return {"error": {"message": message, "type": "invalid_request_error", "param": param,
                      "code": code}}


def o_series_refusal(payload: dict) -> dict | None:
    """The 400 body an OpenAI reasoning model answers to this request, or None."""
    if "max_tokens" in payload:
        return openai_error("Unsupported parameter: 'max_tokens' is not supported with this "
                            "model. Use 'max_completion_tokens' instead.", "max_tokens",
                            "unsupported_parameter")
    temperature = payload.get("temperature")
    if temperature is not None and temperature != 1:
        return openai_error(f"Unsupported value: 'temperature' does not support {temperature:g} "
                            "with this model. Only the default (1) value is supported.",
                            "temperature", "unsupported_value")
    return None


class ReasoningDetails(TypedDict):
    """OpenAI's `usage.completion_tokens_details`: the hidden reasoning's tokens."""

    reasoning_tokens: int


class ChatUsage(TypedDict):
    """A chat completion's `usage`, as OpenAI sends it."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    completion_tokens_details: NotRequired[ReasoningDetails]


def _chat_reply(payload: dict, message: dict, finish: str, completion: int,
                details: ReasoningDetails | None = None) -> dict:
    prompt = _prompt_tokens(payload)
    usage: ChatUsage = {"prompt_tokens": prompt, "completion_tokens": completion,
                        "total_tokens": prompt + completion}
    if details is not None:
        usage["completion_tokens_details"] = details
    return {"id": "chatcmpl-stub", "object": "chat.completion", "created": 0,
            "model": payload.get("model", "stub"),
            "choices": [{"index": 0, "finish_reason": finish,
                         "message": {"role": "assistant", **message}}],
            "usage": usage}


def o_series(reasoning_tokens: int = 300, answer: Answer = fixed_answer) -> Route:
    """An OpenAI reasoning model that reasons `reasoning_tokens` hidden tokens per reply."""

    async def route(i: int, method: str, path: str, payload: dict) -> tuple[int, dict] | None:
        if method != "POST" or not path.endswith("/chat/completions"):
            return None
        if (refusal := o_series_refusal(payload)) is not None:
            return 400, refusal
        used, text, cut = _spend(payload.get("max_completion_tokens"), reasoning_tokens,
                                 answer(prompt_of(payload)))
        return 200, _chat_reply(payload, {"content": text, "refusal": None},
                                "length" if cut else "stop", used + _tokens(text),
                                {"reasoning_tokens": used})

    return route


def reasoning_parser(reasoning_tokens: int = 40, answer: Answer = fixed_answer,
                     field: str = "reasoning_content") -> Route:
    """A vLLM-style server with a reasoning parser: the reasoning in `message[field]`."""

    async def route(i: int, method: str, path: str, payload: dict) -> tuple[int, dict] | None:
        if method != "POST" or not path.endswith("/chat/completions"):
            return None
        used, text, cut = _spend(payload.get("max_tokens"), reasoning_tokens,
                                 answer(prompt_of(payload)))
        # cut while reasoning, vLLM gives no content at all
        message = {"content": text if used == reasoning_tokens else None,
                   field: thoughts(used)}
        return 200, _chat_reply(payload, message, "length" if cut else "stop",
                                used + _tokens(text))

    return route


def anthropic_error(message: str) -> dict:
    """Anthropic's error body for a request it refuses (HTTP 400)."""
    return {"type": "error", "error": {"type": "invalid_request_error", "message": message},
            "request_id": "req_stub"}


def thinking_refusal(payload: dict) -> str | None:
    """Why Anthropic refuses this request's extended-thinking settings, or None."""
    thinking = payload.get("thinking")
    if not isinstance(thinking, dict) or thinking.get("type") != "enabled":
        return None
    budget, cap = thinking.get("budget_tokens"), payload.get("max_tokens")
    if not isinstance(budget, int) or budget < 1024:
        return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
    if not isinstance(cap, int) or cap <= budget:
        return ("`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our "
                f"documentation at {THINKING_DOCS}#max-tokens-and-context-window-size")
    considerations = f"{THINKING_DOCS}#important-considerations-when-using-extended-thinking"
    if payload.get("temperature", 1) != 1:
        return ("`temperature` may only be set to 1 when thinking is enabled. Please consult "
                f"our documentation at {considerations}")
    if "top_k" in payload:  # documented as incompatible; this wording is the stub's own
        return f"`top_k` must be unset when thinking is enabled. See {considerations}"
    top_p = payload.get("top_p", 1)
    if not 0.95 <= top_p <= 1:  # documented range; this wording is the stub's own
        return (f"`top_p` must be between 0.95 and 1, or unset, when thinking is enabled. "
                f"See {considerations}")
    return None


def anthropic_thinking(thinking_tokens: int = 1500, answer: Answer = fixed_answer,
                       redacted: bool = False) -> Route:
    """Anthropic's Messages API; with thinking on, each reply thinks `thinking_tokens` (at
    most its budget) before the answer."""

    async def route(i: int, method: str, path: str, payload: dict) -> tuple[int, dict] | None:
        if method != "POST" or not path.endswith("/v1/messages"):
            return None
        if (refusal := thinking_refusal(payload)) is not None:
            return 400, anthropic_error(refusal)
        thinking = payload.get("thinking") or {}
        budget = thinking.get("budget_tokens", 0) if thinking.get("type") == "enabled" else 0
        used, text, cut = _spend(payload.get("max_tokens"), min(thinking_tokens, budget),
                                 answer(prompt_of(payload)))
        content: list[dict] = []
        if budget:
            content.append({"type": "thinking", "thinking": thoughts(used),
                            "signature": "stub-signature"})
            if redacted:
                content.append({"type": "redacted_thinking", "data": "c3R1Yg=="})
        if text:
            content.append({"type": "text", "text": text})
        return 200, {"id": "msg_stub", "type": "message", "role": "assistant",
                     "model": payload.get("model", "stub"), "content": content,
                     "stop_reason": "max_tokens" if cut else "end_turn", "stop_sequence": None,
                     "usage": {"input_tokens": _prompt_tokens(payload),
                               "output_tokens": used + _tokens(text)}}

    return route
