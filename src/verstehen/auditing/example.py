"""A small finished audit folder made with a scripted model, for the tests that every run kind
goes through (`RunKind.example`), and the scripted oracle it uses."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from verstehen.auditing.api import audit
from verstehen.domains.catalog import BY_KEY
from verstehen.domains.registry import concept_tasks
from verstehen.methods.certification.scopes import get_scope
from verstehen.methods.certification.scopes.concepts import ConceptScope
from verstehen.methods.certification.scopes.draw import question_at
from verstehen.testing.scripted import ScriptedModel

CONCEPTS = ("game-theory/strict-dominance", "game-theory/zero-sum")  # the example's subjects


def oracle(keys: tuple[str, ...], questions: int = 64) -> Callable[[str], str]:
    """Replies a checker grades right for classify and generate items, an unreadable reply to
    every edit item (so the rates' unparsed path is used), the catalog's definition, one
    zero-sum game for every example asked of it, and a Yes to every classification of that
    example."""
    answers: dict[str, str] = {}
    for key in keys:
        name = BY_KEY[key].scope
        assert name is not None, f"{key} is graded exactly"
        scope, tasks = get_scope(name), concept_tasks(name)
        assert isinstance(scope, ConceptScope) and tasks is not None, key
        for i in range(questions):
            q = question_at(scope, 0, i)
            item = ConceptScope.item_of(q)
            answers[q.prompt] = "%%%" if item.kind == "edit" else tasks.reference(item)
    definitions = {f"What is {BY_KEY[k].name}": BY_KEY[k].definition for k in keys}

    def reply(prompt: str) -> str:
        if prompt in answers:
            return answers[prompt]
        if prompt.startswith("Generate one example that"):  # incoherence: a zero-sum game
            return "<OUTPUT>\n[[(1, -1), (-2, 2)], [(0, 0), (3, -3)]]"
        for opening, definition in definitions.items():
            if prompt.startswith(opening):
                return definition
        return "ANSWER: Yes"
    return reply


def audit_example(runs_dir: Path, cache: Path, tag: str = "") -> Path:
    """Every lens of the two CONCEPTS, asked of `oracle`."""
    model = ScriptedModel(f"scripted/oracle{tag}", reply=oracle(CONCEPTS))
    return audit(model, subjects=",".join(CONCEPTS), runs_dir=runs_dir, cache=cache).run_dir
