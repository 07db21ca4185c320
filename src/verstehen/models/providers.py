"""The providers a model name can start with: the built-in ones and those of installed packages;
the key each needs, and reading names.

A package adds a provider with an entry point of group `verstehen.providers` naming a
`ProviderPlugin`, e.g. in its pyproject.toml:

    [project.entry-points."verstehen.providers"]
    echo = "echo_provider:PROVIDER"

Installed providers are looked for when a name's provider is not built in (or when all are
listed), once per process. One that does not load (whatever its import raises but Ctrl-C), or
whose name is taken or text not printable, is left out, said in one line on stderr
(`plugin_problems()` keeps the lines), never a crash; a built-in provider stays.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from verstehen.errors import UserError
from verstehen.models.base import Model
from verstehen.plugins import is_printable
from verstehen.registries import Registry

DEFAULT_MODEL = "local/smollm2-135m"
GROUP = "verstehen.providers"
_PROVIDER_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]*")


@dataclass(frozen=True)
class ProviderInfo:
    """What `verstehen models` says about a provider."""

    name: str
    example: str
    key_variable: str | None
    capabilities: str


@dataclass(frozen=True)
class ProviderSettings:
    """The engine's settings a provider's factory gets with the model part of a name; each is
    None where not given (the provider's own default then). `extra` holds the keywords a
    Python caller passed to `get_model` beyond these."""

    base_url: str | None = None
    timeout: float | None = None
    api_key_env: str | None = None
    reasoning_budget: int | None = None
    threads: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


ModelFactory = Callable[[str, ProviderSettings], Model]


@dataclass(frozen=True)
class ProviderPlugin:
    """A provider from an installed package: what `verstehen models` says of it (its name is
    the part before the "/" of a model name) and the factory making a Model from the part after
    it and the engine's settings."""

    info: ProviderInfo
    make: ModelFactory


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
    "litellm": ProviderInfo(
        "litellm",
        "litellm/gemini/gemini-1.5-pro: litellm/<provider>/<model> for any provider LiteLLM "
        "routes (pip install 'verstehen[litellm]'; another server: --base-url, "
        "--api-key-env NAME)",
        None,
        "generate, through LiteLLM; its key is the provider's own variable "
        "(GEMINI_API_KEY, MISTRAL_API_KEY, AWS_* for Bedrock...), read by LiteLLM",
    ),
}


def known_providers() -> dict[str, ProviderInfo]:
    """Every provider: the built-in ones, then the installed plugins'."""
    return {**PROVIDERS, **{p.info.name: p.info for p in PLUGINS.installed().entries}}


def provider_plugin(provider: str) -> ProviderPlugin | None:
    """The installed plugin of that provider name, or None (built in, or not known)."""
    if provider in PROVIDERS:
        return None
    return next((p for p in PLUGINS.installed().entries if p.info.name == provider), None)


def plugin_problems() -> tuple[str, ...]:
    """One line for each installed provider plugin that was left out, and why."""
    return PLUGINS.problems()


def split_name(name: str) -> tuple[str, str]:
    """Split "provider/model" and check both parts, raising UserError with the fix."""
    provider, sep, model = name.partition("/")
    if not sep or not provider or not model.strip():
        raise UserError(
            f"malformed model name {name!r}: write provider/model, e.g. {DEFAULT_MODEL}"
        )
    if provider not in PROVIDERS and provider_plugin(provider) is None:
        known = ", ".join(known_providers())
        raise UserError(f"unknown provider {provider!r} in {name!r}: use one of {known}")
    return provider, model


def _plugin(value: object, where: str) -> ProviderPlugin:
    """`value` when it is a well-formed ProviderPlugin; TypeError or ValueError saying why
    not otherwise."""
    if not isinstance(value, ProviderPlugin):
        raise TypeError(f"{where} is a {type(value).__name__}, not a "
                        "verstehen.models.providers.ProviderPlugin")
    name = value.info.name
    if not isinstance(name, str) or not _PROVIDER_NAME.fullmatch(name):
        raise ValueError(f"provider name {name!r} is not lower-case letters, digits, "
                         "'-', '_' or '.'")
    if not callable(value.make):
        raise TypeError(f"the factory of provider {name!r} is not callable")
    info = value.info
    if not is_printable(info.example, info.capabilities, info.key_variable or ""):
        raise ValueError(f"provider {name!r}: its example, capabilities or key variable is "
                         "not printable text")
    return value


def _clash(plugin: ProviderPlugin, known: Sequence[ProviderPlugin]) -> str | None:
    """Why a provider plugin cannot join: its name is a built-in provider's or taken."""
    name = plugin.info.name
    if name in PROVIDERS or any(other.info.name == name for other in known):
        return f"a provider named {name!r} is known already"
    return None


# the installed providers (the built-in ones, PROVIDERS, are opened by `models.get_model`)
PLUGINS: Registry[ProviderPlugin] = Registry("provider plugin", GROUP, check=_plugin,
                                             name=lambda p: p.info.name, clash=_clash)
