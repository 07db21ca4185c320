"""Stand-ins for model families' APIs, refusing what their documentation (and their real error
replies) say each refuses, as routes for `testing.stub_endpoints.StubEndpoints(route=...)`.
Each counts what it refused by parameter (`refused`) and what it answered (`answered`); the
README's table under **Reasoning models** has a row, and a source, for each.

- `chat_model`: an OpenAI chat model (gpt-4o, gpt-4.1, gpt-5-chat-latest): every chat
  parameter; the reply cut at `max_tokens` and at a stop sequence.
- `o_series`: OpenAI's o1/o3/o4-mini/gpt-5 on /chat/completions. `max_tokens` is refused
  (400, param `max_tokens`, code `unsupported_parameter`), so is any temperature but 1 (400,
  param `temperature`, code `unsupported_value`), and `stop` (o3, o4-mini, gpt-5; not o1), and
  with `refuses_system` the system role (o1-mini, o1-preview: param `messages[0].role`); the
  hidden reasoning counts in `max_completion_tokens`, so a cap it reaches while reasoning
  leaves the content empty with `finish_reason: "length"`;
  `usage.completion_tokens_details.reasoning_tokens` says how many.
- `gpt_5_1`: OpenAI's gpt-5.1 and later: `max_tokens` refused; `reasoning_effort` defaults to
  "none", and then it does not reason and takes any temperature; with another effort it
  reasons and refuses a temperature but 1.
- `reasoning_parser`: vLLM or SGLang started with a reasoning parser: the usual chat
  parameters, the reasoning apart in `message.reasoning_content` (newer vLLM: `reasoning`),
  counted with the answer in `max_tokens`.
- `anthropic_thinking`: Anthropic's /v1/messages (Claude up to 4.6) with extended thinking:
  budget_tokens of at least 1024 and below max_tokens, temperature 1 or unset, no top_k, top_p
  unset or in [0.95, 1]; refusals in Anthropic's error shape; the reply's thinking block (with
  a signature), optionally a redacted_thinking block, then the text; `stop_reason:
  max_tokens` when the cap cuts it.
- `anthropic_adaptive`: Claude Opus 4.7 and later: `thinking.type: "enabled"` refused (it
  thinks adaptively only), `temperature`, `top_p` and `top_k` refused; adaptive thinking
  within max_tokens, its text returned only with `display: "summarized"`.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from verstehen.testing.stub_families import (
    ANSWER,
    JSON,
    Answer,
    FamilyStub,
    Refusal,
    anthropic_error,
    fixed_answer,
    openai_error,
    prompt_tokens,
    spend,
    stopped,
    thoughts,
    tokens,
)

__all__ = ["ANSWER", "THINKING_DOCS", "anthropic_adaptive", "anthropic_error",
           "anthropic_thinking", "chat_model", "fixed_answer", "gpt_5_1", "o_series",
           "o_series_refusal", "openai_error", "reasoning_parser", "thinking_refusal",
           "thoughts"]
# Anthropic's documentation of the limits its messages below cite
THINKING_DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
# Claude Opus 4.7 and later, in the words of their 400s
ENABLED_REFUSED = ('"thinking.type.enabled" is not supported for this model. Use '
                   '"thinking.type.adaptive" and "output_config.effort" to control thinking '
                   'behavior.')
SAMPLING = ("temperature", "top_p", "top_k")


def o_series_refusal(payload: JSON, *, stop: bool = False, system: bool = False
                     ) -> JSON | None:
    """The 400 body an OpenAI reasoning model answers to this request, or None (`stop`: it
    refuses stop sequences; `system`: the system role)."""
    found = _o_series(payload, stop=stop, system=system)
    return None if found is None else found[1]


def _o_series(payload: JSON, *, stop: bool, system: bool) -> Refusal | None:
    if "max_tokens" in payload:
        return "max_tokens", openai_error(
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
            "'max_completion_tokens' instead.", "max_tokens", "unsupported_parameter")
    temperature = payload.get("temperature")
    if temperature is not None and temperature != 1:
        return "temperature", openai_error(
            f"Unsupported value: 'temperature' does not support {temperature:g} with this "
            "model. Only the default (1) value is supported.", "temperature",
            "unsupported_value")
    if stop and "stop" in payload:
        return "stop", openai_error("Unsupported parameter: 'stop' is not supported with this "
                                    "model.", "stop", "unsupported_parameter")
    roles = [m.get("role") for m in payload.get("messages") or [] if isinstance(m, dict)]
    if system and "system" in roles:
        where = f"messages[{roles.index('system')}].role"
        return "system", openai_error(f"Unsupported value: '{where}' does not support "
                                      "'system' with this model.", where, "unsupported_value")
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


class ChatModel(FamilyStub):
    """An OpenAI-compatible chat model reasoning `reasoning_tokens` hidden tokens a reply
    (none: a chat model), its reasoning counted in the cap."""

    def __init__(self, answer: Answer = fixed_answer, reasoning_tokens: int = 0) -> None:
        super().__init__(answer)
        self.reasoning_tokens = reasoning_tokens

    def reasoning(self, payload: JSON) -> int:
        """The hidden reasoning tokens of a reply to this request."""
        return self.reasoning_tokens

    def reply(self, payload: JSON) -> JSON:
        """The completion, cut at the cap (reasoning first) and at a stop sequence."""
        cap = payload.get("max_completion_tokens", payload.get("max_tokens"))
        stops = payload.get("stop") or []
        text, _ = stopped(self.reply_text(payload), [stops] if isinstance(stops, str)
                          else stops)
        used, text, cut = spend(cap, self.reasoning(payload), text)
        prompt, completion = prompt_tokens(payload), used + tokens(text)
        usage: ChatUsage = {"prompt_tokens": prompt, "completion_tokens": completion,
                            "total_tokens": prompt + completion}
        if self.reasoning_tokens:
            usage["completion_tokens_details"] = {"reasoning_tokens": used}
        return {"id": "chatcmpl-stub", "object": "chat.completion", "created": 0,
                "model": payload.get("model", "stub"),
                "choices": [{"index": 0, "finish_reason": "length" if cut else "stop",
                             "message": {"role": "assistant", "content": text,
                                         "refusal": None}}],
                "usage": usage}


class OSeries(ChatModel):
    """OpenAI's o1, o3, o4-mini and gpt-5 (and o1-mini with `refuses_system`)."""

    def __init__(self, answer: Answer = fixed_answer, reasoning_tokens: int = 300, *,
                 refuses_stop: bool = True, refuses_system: bool = False) -> None:
        super().__init__(answer, reasoning_tokens)
        self.refuses_stop, self.refuses_system = refuses_stop, refuses_system

    def refusal(self, payload: JSON) -> Refusal | None:
        """max_tokens, a temperature but 1, stop (o3, o4-mini, gpt-5), the system role
        (o1-mini)."""
        return _o_series(payload, stop=self.refuses_stop, system=self.refuses_system)


class Gpt51(ChatModel):
    """OpenAI's gpt-5.1 and later: no reasoning unless `reasoning_effort` asks for it."""

    def reasoning(self, payload: JSON) -> int:
        """None at the default effort ("none"), `reasoning_tokens` at another."""
        return 0 if payload.get("reasoning_effort", "none") == "none" else self.reasoning_tokens

    def refusal(self, payload: JSON) -> Refusal | None:
        """max_tokens; a temperature but 1 only while it reasons."""
        return _o_series({k: v for k, v in payload.items()
                          if k != "temperature" or self.reasoning(payload)},
                         stop=False, system=False)


def chat_model(answer: Answer = fixed_answer) -> ChatModel:
    """An OpenAI chat model (gpt-4o, gpt-4.1, gpt-5-chat-latest)."""
    return ChatModel(answer)


def o_series(reasoning_tokens: int = 300, answer: Answer = fixed_answer, *,
             refuses_stop: bool = True, refuses_system: bool = False) -> OSeries:
    """An OpenAI reasoning model that reasons `reasoning_tokens` hidden tokens per reply."""
    return OSeries(answer, reasoning_tokens, refuses_stop=refuses_stop,
                   refuses_system=refuses_system)


def gpt_5_1(reasoning_tokens: int = 300, answer: Answer = fixed_answer) -> Gpt51:
    """gpt-5.1 or later, reasoning `reasoning_tokens` tokens a reply when asked to reason."""
    return Gpt51(answer, reasoning_tokens)


class ReasoningParser(FamilyStub):
    """A vLLM-style server with a reasoning parser: the reasoning in `message[field]`."""

    def __init__(self, answer: Answer, reasoning_tokens: int, field: str) -> None:
        super().__init__(answer)
        self.reasoning_tokens, self.field = reasoning_tokens, field

    def reply(self, payload: JSON) -> JSON:
        """Reasoning then answer, both counted in max_tokens."""
        used, text, cut = spend(payload.get("max_tokens"), self.reasoning_tokens,
                                self.reply_text(payload))
        # cut while reasoning, vLLM gives no content at all
        message = {"role": "assistant", "content": text if used == self.reasoning_tokens
                   else None, self.field: thoughts(used)}
        prompt, completion = prompt_tokens(payload), used + tokens(text)
        return {"id": "chatcmpl-stub", "object": "chat.completion", "created": 0,
                "model": payload.get("model", "stub"),
                "choices": [{"index": 0, "finish_reason": "length" if cut else "stop",
                             "message": message}],
                "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                          "total_tokens": prompt + completion}}


def reasoning_parser(reasoning_tokens: int = 40, answer: Answer = fixed_answer,
                     field: str = "reasoning_content") -> ReasoningParser:
    """A vLLM-style server with a reasoning parser: the reasoning in `message[field]`."""
    return ReasoningParser(answer, reasoning_tokens, field)


def thinking_refusal(payload: JSON) -> str | None:
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


class ClaudeThinking(FamilyStub):
    """Anthropic's Messages API (Claude up to 4.6): with thinking on, each reply thinks
    `thinking_tokens` (at most its budget) before the answer."""

    path = "/v1/messages"

    def __init__(self, answer: Answer = fixed_answer, thinking_tokens: int = 1500,
                 redacted: bool = False) -> None:
        super().__init__(answer)
        self.thinking_tokens, self.redacted = thinking_tokens, redacted

    def refusal(self, payload: JSON) -> Refusal | None:
        """Extended thinking's limits (each refusal counted as "thinking")."""
        why = thinking_refusal(payload)
        return None if why is None else ("thinking", anthropic_error(why))

    def thinking(self, payload: JSON) -> tuple[int, bool]:
        """The most this reply may think, and whether its text is returned."""
        thinking = payload.get("thinking") or {}
        enabled = thinking.get("type") == "enabled"
        return (min(self.thinking_tokens, thinking.get("budget_tokens", 0)) if enabled
                else 0), True

    def reply(self, payload: JSON) -> JSON:
        """Thinking blocks (with a signature), then the text, cut at max_tokens and at a stop
        sequence."""
        room, shown = self.thinking(payload)
        text, met = stopped(self.reply_text(payload), payload.get("stop_sequences") or [])
        used, text, cut = spend(payload.get("max_tokens"), room, text)
        content: list[JSON] = []
        if room:
            content.append({"type": "thinking", "thinking": thoughts(used) if shown else "",
                            "signature": "stub-signature"})
            if self.redacted:
                content.append({"type": "redacted_thinking", "data": "c3R1Yg=="})
        if text:
            content.append({"type": "text", "text": text})
        reason = "max_tokens" if cut else "stop_sequence" if met else "end_turn"
        return {"id": "msg_stub", "type": "message", "role": "assistant",
                "model": payload.get("model", "stub"), "content": content,
                "stop_reason": reason, "stop_sequence": None,
                "usage": {"input_tokens": prompt_tokens(payload),
                          "output_tokens": used + tokens(text)}}


class ClaudeAdaptive(ClaudeThinking):
    """Claude Opus 4.7 and later: adaptive thinking only, no sampling parameters."""

    def refusal(self, payload: JSON) -> Refusal | None:
        """`thinking.type: enabled`, and temperature, top_p or top_k."""
        if (payload.get("thinking") or {}).get("type") == "enabled":
            return "thinking", anthropic_error(ENABLED_REFUSED)
        sent = next((name for name in SAMPLING if name in payload), None)
        if sent is not None:
            return sent, anthropic_error(f"`{sent}` is deprecated for this model.")
        return None

    def thinking(self, payload: JSON) -> tuple[int, bool]:
        """Adaptive: it thinks `thinking_tokens` within max_tokens, its text omitted unless
        `display` is "summarized"."""
        thinking = payload.get("thinking") or {}
        if thinking.get("type") != "adaptive":
            return 0, True
        return self.thinking_tokens, thinking.get("display") == "summarized"


def anthropic_thinking(thinking_tokens: int = 1500, answer: Answer = fixed_answer,
                       redacted: bool = False) -> ClaudeThinking:
    """Anthropic's Messages API (Claude up to 4.6), extended thinking as documented."""
    return ClaudeThinking(answer, thinking_tokens, redacted)


def anthropic_adaptive(thinking_tokens: int = 1500, answer: Answer = fixed_answer
                       ) -> ClaudeAdaptive:
    """Claude Opus 4.7 and later: adaptive thinking only, no temperature, top_p or top_k."""
    return ClaudeAdaptive(answer, thinking_tokens)
