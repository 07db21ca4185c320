"""Conceptual consistency from Python: `consistency()`, and its twin `consistency_async()`.

The synchronous one works inside a notebook's running loop too; both call the entry point the
CLI calls, so their run folders are the same as `verstehen consistency` makes. Their parameters
are ConsistencyOptions' fields (`verstehen.methods.consistency.options`).
"""

from __future__ import annotations

from verstehen.methods.consistency.options import consistency, consistency_async

__all__ = ["consistency", "consistency_async"]
