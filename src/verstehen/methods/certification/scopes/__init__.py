"""Scopes by name: `get_scope("arithmetic")`, `get_scope("mcq:<path>")`,
`get_scope("game-theory/pure-nash")`, `get_scope("poetry/haiku/classify")`: the scopes
certification draws its questions from (paper Definition 3.1).

A scope is registered as a factory, by exact name (`_NAMED`) or by a prefix that takes an
argument after the colon (`_PREFIXED`), so new families of scopes plug in with one entry.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from verstehen.domains.base import TASK_KINDS
from verstehen.domains.catalog import canonical_name
from verstehen.domains.registry import EXACT_SCOPES, concept_tasks
from verstehen.errors import UserError
from verstehen.methods.certification.scopes.arithmetic import arithmetic_scope
from verstehen.methods.certification.scopes.concepts import ConceptScope
from verstehen.scopes.base import ExplainableScope, Question, Scope
from verstehen.scopes.mcq import MCQScope
from verstehen.wording import parameter

__all__ = ["BUILTIN_SCOPES", "ExplainableScope", "Question", "Scope", "get_scope", "scope_listing",
           "scope_names"]

# factory(argument, idk_score, wrong_score); the argument is "" for named scopes
ScopeFactory = Callable[[str, float | None, float | None], Scope]


def _no_choices(name: str, wrong_score: float | None) -> None:
    if wrong_score is not None:
        raise UserError(f"scope '{name}' has no choices: wrong_score applies only to mcq:<path>")


def _arithmetic(name: str) -> ScopeFactory:
    def make(_: str, idk_score: float | None, wrong_score: float | None) -> Scope:
        _no_choices(name, wrong_score)
        return arithmetic_scope(name, idk_score=idk_score)
    return make


def _mcq(path: str, idk_score: float | None, wrong_score: float | None) -> Scope:
    if not path:
        raise UserError("scope 'mcq:' needs a path: mcq:<path>")
    return MCQScope(path, idk_score=0.0 if idk_score is None else idk_score,
                    wrong_score=0.0 if wrong_score is None else wrong_score)


# name -> (one-line description, factory)
_NAMED: dict[str, tuple[str, ScopeFactory]] = {
    "arithmetic": ("a +-*/ b for numbers with 2 decimals in [0, 1,000,000] (the paper's example)",
                   _arithmetic("arithmetic")),
    "arithmetic/small": ("a +-*/ b for integers in [0, 99], exact division, idk scores 0",
                         _arithmetic("arithmetic/small")),
}
# prefix -> (argument name, one-line description, factory)
_PREFIXED: dict[str, tuple[str, str, ScopeFactory]] = {
    "mcq": ("<path>", "the questions of a CSQA/ARC jsonl, MMLU csv (file or folder) or MMLU "
                      "jsonl(.gz) file, hf:DATASET[:CONFIG][@REVISION][#SPLIT] from the "
                      "local Hugging Face cache, or hf:PATH[#SPLIT] a dataset folder on disk "
                      "(PATH starting /, ./, ../ or ~), drawn with replacement", _mcq),
}

BUILTIN_SCOPES: dict[str, str] = {name: desc for name, (desc, _) in _NAMED.items()}


def scope_names() -> list[str]:
    """Every accepted spec form, e.g. ["arithmetic", ..., "mcq:<path>", "poetry/haiku"]."""
    return [*_NAMED, *(f"{p}:{arg}" for p, (arg, _, _) in _PREFIXED.items()), *EXACT_SCOPES]


def scope_listing() -> str:
    """Every scope with its description, a line each (`verstehen scopes`; the plugin domains'
    scopes are read here, not at import)."""
    return "\n".join(
        [f"{name}: {desc}" for name, desc in BUILTIN_SCOPES.items()]
        + [f"{p}:{arg}: {desc}" for p, (arg, desc, _) in _PREFIXED.items()]
        + [f"{name}[/{'|'.join(TASK_KINDS)}]: {desc}" for name, desc in EXACT_SCOPES.items()]
    )


def _concept_scope(spec: str, idk_score: float | None, wrong_score: float | None) -> Scope | None:
    base, _, kind = spec.rpartition("/")
    if spec in EXACT_SCOPES:
        base, kinds = spec, TASK_KINDS
    elif base in EXACT_SCOPES and kind in TASK_KINDS:
        kinds = (kind,)
    else:
        return None
    if idk_score is not None or wrong_score is not None:
        raise UserError(f"scope '{spec}' scores 1 right and 0 otherwise: "
                        f"{parameter('idk_score')} and {parameter('wrong_score')} do not apply "
                        "to it")
    tasks = concept_tasks(base)
    if tasks is None:
        raise UserError(f"scope '{base}' is listed but has no items: report this as a bug")
    return ConceptScope(tasks, kinds)


def _check_score(flag: str, value: float | None) -> None:
    if value is not None and not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise UserError(f"{flag} must be between 0 and 1, got {value}")


def get_scope(spec: str, *, idk_score: float | None = None,
              wrong_score: float | None = None) -> Scope:
    """The scope named by `spec`; idk_score/wrong_score override the scope's defaults."""
    _check_score("idk_score", idk_score)
    _check_score("wrong_score", wrong_score)
    spec = canonical_name(spec)  # "literary/haiku" is poetry/haiku
    if spec in _NAMED:
        return _NAMED[spec][1]("", idk_score, wrong_score)
    concept = _concept_scope(spec, idk_score, wrong_score)
    if concept is not None:
        return concept
    prefix, sep, arg = spec.partition(":")
    if sep and prefix in _PREFIXED:
        return _PREFIXED[prefix][2](arg, idk_score, wrong_score)
    raise UserError(f"unknown scope '{spec}': choose one of {', '.join(scope_names())}")
