"""LiteLLM itself, for the litellm/ provider: imported on first use only (it is an optional
extra, and slow to import), offline, quiet, and with what it keeps open released.

LiteLLM fetches its model-cost map from the internet when imported unless
LITELLM_LOCAL_MODEL_COST_MAP is true, so that is set first: verstehen makes no request of its
own. It is imported by name (`importlib`), so the type checker never walks its sources. Once
imported, the clients it makes are given our transport (`litellm_transport.install`).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
from types import ModuleType

from verstehen.errors import UserError
from verstehen.models.litellm_transport import install

INSTALL = "pip install 'verstehen[litellm]'"
# the environment variable that keeps LiteLLM's import off the network (its bundled map)
LOCAL_COST_MAP = "LITELLM_LOCAL_MODEL_COST_MAP"

# providers whose lookup in LiteLLM is a login (an OAuth device flow, over the network), as
# LiteLLM's PROVIDERS_THAT_AUTHENTICATE_ON_PROVIDER_INFO names them: never looked up here
LOGIN_PROVIDERS = frozenset({"github_copilot", "chatgpt"})
# a variable that holds a key (not a base URL, project, region or key id, which a provider may
# do without: Ollama's default host, Vertex's and AWS's own credential files)
KEY_VARIABLE = re.compile(r"_(KEY|TOKEN)$")

_loaded: list[ModuleType] = []  # the module, once imported and set up


def load_litellm(name: str) -> ModuleType:
    """The `litellm` module, imported offline and quiet the first time; a UserError naming
    the extra to install when it is absent (`name` is the model that needs it)."""
    if _loaded:
        return _loaded[0]
    os.environ[LOCAL_COST_MAP] = "True"
    try:
        litellm = importlib.import_module("litellm")
    except ImportError:
        raise UserError(f"{name} needs LiteLLM, which is not installed: {INSTALL}") from None
    # no "Give Feedback / Get Help" banner on stderr before each error it raises
    setattr(litellm, "suppress_debug_info", True)  # noqa: B010 (a module, typed loosely)
    install(litellm)  # every client it makes sends through our transport
    _loaded.append(litellm)
    return litellm


def known_provider(litellm: ModuleType, provider: str) -> bool:
    """True when LiteLLM routes `provider/...` model names (its `provider_list`)."""
    return provider in {str(getattr(p, "value", p)) for p in litellm.provider_list}


def unset_key_variables(litellm: ModuleType, model: str) -> tuple[str, ...]:
    """The variables LiteLLM reads the key of `model` ("provider/model") from, when none is
    set; () when one is, when the provider may need more than a key (a base URL, a project, AWS
    credentials) or when LiteLLM cannot tell. Offline: `litellm.validate_environment` reads the
    environment only, and is not asked about a provider whose lookup is a login."""
    provider = model.partition("/")[0]
    logins = getattr(_optional_module("litellm.constants"),
                     "PROVIDERS_THAT_AUTHENTICATE_ON_PROVIDER_INFO", LOGIN_PROVIDERS)
    if provider in LOGIN_PROVIDERS | set(logins):
        return ()
    try:
        found = litellm.validate_environment(model=model)
    except Exception:  # LiteLLM cannot tell: the call will say what it lacks
        return ()
    missing = found.get("missing_keys") if isinstance(found, dict) else None
    if not isinstance(missing, list) or found.get("keys_in_environment") or not missing:
        return ()
    names = tuple(str(name) for name in missing)
    return names if all(KEY_VARIABLE.search(name) for name in names) else ()


async def release(litellm: ModuleType) -> None:
    """Finish LiteLLM's queued logging tasks and close the HTTP clients it cached, on the
    running event loop (a loop that ends with them open warns of unclosed sessions and leaves
    connections half-open). Each step is skipped where this LiteLLM lacks it."""
    worker_module = _optional_module("litellm.litellm_core_utils.logging_worker")
    worker = getattr(worker_module, "GLOBAL_LOGGING_WORKER", None)
    for step in ("flush", "stop"):
        if (method := getattr(worker, step, None)) is not None:
            with contextlib.suppress(Exception):  # logging is LiteLLM's, never a call's fault
                await method()
    if (close_clients := getattr(litellm, "close_litellm_async_clients", None)) is not None:
        await close_clients()
    clients = getattr(litellm, "in_memory_llm_clients_cache", None)
    if (flush := getattr(clients, "flush_cache", None)) is not None:
        flush()  # the closed clients must not be handed to a later call


def _optional_module(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None
