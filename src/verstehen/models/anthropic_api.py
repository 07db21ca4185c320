"""Anthropic's Messages API through the official anthropic SDK (generation only)."""

from __future__ import annotations

import os

import anthropic

from verstehen.errors import UnsupportedCapability
from verstehen.models.base import Capabilities, Completion, GenerateParams, Message, Usage
from verstehen.models.remote import DEFAULT_TIMEOUT, api_key, classify_sdk_error, public_url


class AnthropicModel:
    """Claude models; `seed` is not an API parameter, so only the cache reproduces samples.

    ANTHROPIC_API_KEY goes to api.anthropic.com only; another server gets the key in the
    variable `api_key_env` names, or none. `timeout` bounds one attempt's wait (seconds).
    """

    max_connections = 8

    def __init__(
        self, model: str, *, base_url: str | None = None, timeout: float | None = None,
        api_key_env: str | None = None,
    ) -> None:
        self.name = f"anthropic/{model}"
        self.model = model
        self.base_url = base_url or os.environ.get("ANTHROPIC_BASE_URL") or None
        self.capabilities = Capabilities(generate=True, logprobs=False, note="no logprobs API")
        self._key = api_key("ANTHROPIC_API_KEY", "api.anthropic.com", self.base_url,
                            api_key_env, "anthropic")
        self._client = anthropic.AsyncAnthropic(
            api_key=self._key or "no-key",
            base_url=self.base_url,
            max_retries=0,
            timeout=timeout or DEFAULT_TIMEOUT,
        )

    def identity(self) -> dict[str, str]:
        """Provider, model and base URL."""
        return {
            "provider": "anthropic",
            "model": self.model,
            "base_url": public_url(self.base_url or "https://api.anthropic.com"),
        }

    async def generate(self, messages: list[Message], params: GenerateParams) -> Completion:
        """One message; system turns become the `system` parameter."""
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        turns = [{"role": m["role"], "content": m["content"]} for m in messages
                 if m["role"] != "system"]
        extra: dict[str, object] = {}
        if system:
            extra["system"] = system
        if params.stop:
            extra["stop_sequences"] = list(params.stop)
        try:
            out = await self._client.messages.create(
                model=self.model,
                messages=turns,  # type: ignore[arg-type]
                max_tokens=params.max_tokens,
                # SDK 1.0 dropped `temperature` from the signature; the API still takes it
                extra_body={"temperature": params.temperature},
                **extra,  # type: ignore[arg-type]
            )
        except Exception as exc:
            raise classify_sdk_error(exc, self._key) from exc
        text = "".join(getattr(block, "text", "") for block in out.content)
        return Completion(
            text=text,
            finish_reason=out.stop_reason,
            usage=Usage(out.usage.input_tokens, out.usage.output_tokens),
        )

    async def logprobs(self, context: str, continuations: list[str]) -> list[float]:
        """Not offered by the API."""
        raise UnsupportedCapability(
            f"{self.name} cannot score continuations (the API has no logprobs): use local/ "
            "or an OpenAI-compatible server with --base-url"
        )

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self._client.close()
