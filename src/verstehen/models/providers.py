"""The providers a model name can start with, the key each needs, and reading names."""

from __future__ import annotations

from dataclasses import dataclass

from verstehen.errors import UserError

DEFAULT_MODEL = "local/smollm2-135m"


@dataclass(frozen=True)
class ProviderInfo:
    """What `verstehen models` says about a provider."""

    name: str
    example: str
    key_variable: str | None
    capabilities: str


PROVIDERS = {
    "local": ProviderInfo(
        "local",
        "local/smollm2-135m or local/path/to/model.gguf",
        None,
        "generate, exact logprobs; in-process llama.cpp on CPU, no network",
    ),
    "openai": ProviderInfo(
        "openai",
        "openai/gpt-4o-mini, or any OpenAI-compatible server with --base-url (its key: "
        "--api-key-env NAME)",
        "OPENAI_API_KEY",
        "generate (reasoning models too: --reasoning-budget); exact logprobs where the "
        "server echoes prompt logprobs (vLLM, llama.cpp)",
    ),
    "anthropic": ProviderInfo(
        "anthropic",
        "anthropic/claude-sonnet-4-5 (another server: --base-url, --api-key-env NAME)",
        "ANTHROPIC_API_KEY",
        "generate (extended thinking: --reasoning-budget)",
    ),
}


def split_name(name: str) -> tuple[str, str]:
    """Split "provider/model" and check both parts, raising UserError with the fix."""
    provider, sep, model = name.partition("/")
    if not sep or not provider or not model.strip():
        raise UserError(
            f"malformed model name {name!r}: write provider/model, e.g. {DEFAULT_MODEL}"
        )
    if provider not in PROVIDERS:
        known = ", ".join(PROVIDERS)
        raise UserError(f"unknown provider {provider!r} in {name!r}: use one of {known}")
    return provider, model
