"""The optional extras the exporter needs, imported only when asked for: a missing one is a
UserError saying in one line what to install."""

from __future__ import annotations

import importlib
from types import ModuleType

from verstehen.errors import UserError


def need(module: str, extra: str, what: str) -> ModuleType:
    """Import `module`, or a UserError naming the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UserError(f"{what} needs {module.split('.')[0]}, which is not installed: "
                        f"pip install 'verstehen[{extra}]'") from None
