"""The library API: each method in one call, and the typed results they return.

Every function is synchronous (inside a running event loop, as in a notebook, it runs on a
worker thread) and has an `_async` twin; each takes `runs_dir=` and `cache=` (defaults as the
CLI's: ./runs or $VERSTEHEN_RUNS_DIR, ~/.cache/verstehen/calls.sqlite or $VERSTEHEN_CACHE)
and writes the same run folder the CLI writes, so `verstehen annotate` and `--resume` work on
it. A model is a name (`local/smollm2-135m`, `openai/gpt-4o-mini`) or a Model object.
"""

from verstehen.errors import UserError
from verstehen.methods.certification.api import audit, audit_async, certify, certify_async
from verstehen.methods.certification.results import CertifyResult, ScopeResult
from verstehen.methods.certification.verdict import Criterion, Decision, Verdict
from verstehen.models import DEFAULT_MODEL, Model, get_model

__all__ = [
    "DEFAULT_MODEL",
    "CertifyResult",
    "Criterion",
    "Decision",
    "Model",
    "ScopeResult",
    "UserError",
    "Verdict",
    "audit",
    "audit_async",
    "certify",
    "certify_async",
    "get_model",
]
