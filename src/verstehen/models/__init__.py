"""`get_model("provider/name")`: the one way to get a model.

The provider modules, and the SDKs or native library they import, load here on first use and
nowhere else: `verstehen --help` does not pay for openai, anthropic or llama.cpp.
"""

from __future__ import annotations

from typing import Any

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
from verstehen.models.providers import DEFAULT_MODEL, PROVIDERS, split_name

__all__ = [
    "DEFAULT_MODEL",
    "PROVIDERS",
    "Capabilities",
    "Completion",
    "GenerateParams",
    "Message",
    "Model",
    "Usage",
    "check_model",
    "get_model",
    "model_name",
    "split_name",
    "user",
]


def check_model(name: str) -> None:
    """Refuse in one line, before anything runs, a model name or a local/ file that cannot be
    opened (a missing or non-GGUF file)."""
    provider, model = split_name(name)
    if provider == "local":
        from verstehen.models.local import resolve_path

        resolve_path(model)


def get_model(name: str, **args: Any) -> Model:
    """Build the model named "provider/model"; `args` go to the provider (e.g. base_url,
    reasoning_budget)."""
    provider, model = split_name(name)
    if provider == "local":
        from verstehen.models.local import LocalModel

        return LocalModel(model, **args)
    if provider == "openai":
        from verstehen.models.openai_api import OpenAIModel

        return OpenAIModel(model, **args)
    from verstehen.models.anthropic_api import AnthropicModel

    return AnthropicModel(model, **args)
