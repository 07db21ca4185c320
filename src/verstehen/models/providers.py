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

import importlib.metadata
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from verstehen.errors import UserError
from verstehen.models.base import Model
from verstehen.plugins import PluginError, is_printable, left_out, load, once, warn_each

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
    return {**PROVIDERS, **{name: p.info for name, p in _installed()[0].items()}}


def provider_plugin(provider: str) -> ProviderPlugin | None:
    """The installed plugin of that provider name, or None (built in, or not known)."""
    return None if provider in PROVIDERS else _installed()[0].get(provider)


def plugin_problems() -> tuple[str, ...]:
    """One line for each installed provider plugin that was left out, and why."""
    return _installed()[1]


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


@once
def _installed() -> tuple[dict[str, ProviderPlugin], tuple[str, ...]]:
    """(the installed plugins by provider name, a line for each one left out); the lines are
    said on stderr when first found."""
    found: dict[str, ProviderPlugin] = {}
    problems: list[str] = []
    for point in _entry_points():
        try:
            plugin = load(point, _plugin)
        except PluginError as exc:
            problems.append(left_out("provider plugin", point, str(exc)))
            continue
        name = plugin.info.name
        if name in PROVIDERS or name in found:
            problems.append(left_out("provider plugin", point,
                                     f"a provider named {name!r} is known already"))
            continue
        found[name] = plugin
    warn_each(problems)
    return found, tuple(problems)


def _entry_points() -> Iterable[importlib.metadata.EntryPoint]:
    """The installed packages' entry points of the group."""
    return importlib.metadata.entry_points(group=GROUP)


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
