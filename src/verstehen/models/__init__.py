"""`get_model("provider/name")`: the one way to get a model.

The provider modules, and the SDKs or native library they import, load here on first use and
nowhere else: `verstehen --help` does not pay for openai, anthropic or llama.cpp. A provider
from an installed package (entry point `verstehen.providers`, `providers.ProviderPlugin`) makes
its models through its own factory.
"""

from __future__ import annotations

from typing import Any

from verstehen.errors import UserError
from verstehen.models.base import (
    Capabilities,
    Completion,
    GenerateParams,
    Message,
    Model,
    Usage,
    model_name,
    user,
)
from verstehen.models.providers import (
    DEFAULT_MODEL,
    PROVIDERS,
    ProviderInfo,
    ProviderPlugin,
    ProviderSettings,
    known_providers,
    provider_plugin,
    split_name,
)
from verstehen.models.remote import env_base_url, refuse_credentials
from verstehen.plugins import exception_line

__all__ = [
    "DEFAULT_MODEL",
    "PROVIDERS",
    "Capabilities",
    "Completion",
    "GenerateParams",
    "Message",
    "Model",
    "ProviderInfo",
    "ProviderPlugin",
    "ProviderSettings",
    "Usage",
    "check_model",
    "get_model",
    "known_providers",
    "model_name",
    "split_name",
    "user",
]


def check_model(name: str) -> None:
    """Refuse in one line, before anything runs, a model name or a local/ file that cannot be
    opened (a missing or non-GGUF file), or a base URL in the environment for its provider
    that holds a user name or password (OPENAI_BASE_URL...)."""
    provider, model = split_name(name)
    if provider == "local":
        from verstehen.models.local import resolve_path

        resolve_path(model)
    elif provider in {"openai", "anthropic"}:
        env_base_url(f"{provider.upper()}_BASE_URL")
    elif provider == "litellm":
        from verstehen.models.litellm_api import base_variables

        env_base_url(*base_variables(model.partition("/")[0]))


def get_model(name: str, **args: Any) -> Model:
    """Build the model named "provider/model"; `args` go to the provider (e.g. base_url,
    reasoning_budget), to an installed plugin's factory as `ProviderSettings`."""
    provider, model = split_name(name)
    base_url = args.get("base_url")
    for url in [base_url] if isinstance(base_url, str) else base_url or ():
        refuse_credentials(url)  # for every provider, plugins' too: never sent, never stored
    if (plugin := provider_plugin(provider)) is not None:
        return _plugin_model(plugin, name, model, args)
    if provider == "local":
        from verstehen.models.local import LocalModel

        return LocalModel(model, **args)
    if provider == "openai":
        from verstehen.models.openai_api import OpenAIModel

        return OpenAIModel(model, **args)
    if provider == "litellm":
        from verstehen.models.litellm_api import LiteLLMModel

        return LiteLLMModel(model, **args)
    from verstehen.models.anthropic_api import AnthropicModel

    return AnthropicModel(model, **args)


def _plugin_model(plugin: ProviderPlugin, name: str, model: str, args: dict[str, Any]) -> Model:
    """The model a provider plugin's factory makes; what goes wrong in the plugin's code is a
    UserError naming the plugin (its own UserError passes as it is)."""
    known = {key: args.pop(key, None) for key in
             ("base_url", "timeout", "api_key_env", "reasoning_budget", "threads")}
    if known["base_url"] is not None and not isinstance(known["base_url"], str):
        raise UserError(f"several base URLs are replicas of one openai/ model, not of {name}: "
                        "give one")
    settings = ProviderSettings(**known, extra=args)
    try:
        made = plugin.make(model, settings)
    except (UserError, KeyboardInterrupt):
        raise
    except BaseException as exc:  # whatever a third party's factory raises, SystemExit too
        raise UserError(f"provider plugin {plugin.info.name!r} could not open {name!r}: "
                        f"{exception_line(exc)}") from exc
    if not isinstance(made, Model):
        raise UserError(f"provider plugin {plugin.info.name!r} made a "
                        f"{type(made).__name__} for {name!r}, not a verstehen Model")
    return made
