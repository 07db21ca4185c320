"""Small finished run folders of `potemkin run`, `potemkin incoherence` and `potemkin
selfjudge` made with scripted models, for the tests that every run kind goes through
(`RunKind.example`), and the scripted replies they use."""

from __future__ import annotations

import json
from pathlib import Path

from verstehen.domains.catalog import BY_KEY
from verstehen.domains.registry import concept_tasks
from verstehen.engine.store.safe_files import write_file
from verstehen.methods.potemkin.api import potemkin_incoherence, potemkin_run, potemkin_selfjudge
from verstehen.methods.potemkin.run import plan_run
from verstehen.testing.scripted import ScriptedModel

CONCEPT = "game-theory/strict-dominance"  # the concept `answerer` answers
# one zero-sum game, the example every incoherence prompt gets
ZERO_SUM_GAME = "<OUTPUT>\n[[(1, -1), (-2, 2)], [(0, 0), (3, -3)]]"


def answerer(name: str = "scripted/answerer") -> ScriptedModel:
    """Answers classify and generate strict-dominance items with the checker's reference reply
    (right), edit with garbage (unparsed)."""
    scope = BY_KEY[CONCEPT].scope
    tasks = concept_tasks(scope) if scope is not None else None
    assert tasks is not None, f"{CONCEPT} is graded exactly"
    plan = plan_run(concepts=CONCEPT, items_per_concept=1)
    replies = {i.prompt: tasks.reference(i.item) if i.task != "edit" else "%%%"
               for i in plan.items if i.item is not None}
    return ScriptedModel(name, reply=lambda p: replies.get(p, "A definition."))


def relies_then_a(prompt: str) -> str:
    """Says a question relies on a concept (the self-judge's first step), else answers A."""
    return "ANSWER: Yes\nCONCEPT: choices" if prompt.startswith("A concept is") else "A"


def zero_sum_maker(prompt: str) -> str:
    """Makes the same zero-sum game whatever it is asked for, and calls every example an
    instance: coherent for the instances asked, incoherent for the non-instances."""
    if prompt.startswith("Is the following"):
        return "ANSWER: Yes"
    return ZERO_SUM_GAME


def run_example(runs_dir: Path, cache: Path, tag: str = "") -> Path:
    """One item of each task of CONCEPT, answered by `answerer`, judged by a model that says
    yes to every definition."""
    judge = ScriptedModel(f"scripted/judge{tag}", reply=lambda p: "ANSWER: Yes")
    return potemkin_run(answerer(f"scripted/answerer{tag}"), concepts=CONCEPT,
                        items_per_concept=1, judge=judge, runs_dir=runs_dir,
                        cache=cache).run_dir


def incoherence_example(runs_dir: Path, cache: Path, tag: str = "") -> Path:
    """Two instances and two non-instances of a zero-sum game asked of `zero_sum_maker`."""
    model = ScriptedModel(f"scripted/maker{tag}", reply=zero_sum_maker)
    return potemkin_incoherence(model, concepts="game-theory/zero-sum", per_concept=2,
                                runs_dir=runs_dir, cache=cache).run_dir


def selfjudge_example(runs_dir: Path, cache: Path, tag: str = "") -> Path:
    """One multiple-choice question (written beside runs_dir, as dev.jsonl) and two related
    questions, asked of `relies_then_a`."""
    dev = runs_dir.parent / "dev.jsonl"
    dev.parent.mkdir(parents=True, exist_ok=True)
    write_file(dev, json.dumps({"id": "q1", "question": {"stem": "Stem?", "choices": [
        {"label": x, "text": f"choice {x}"} for x in "ABCDE"]}, "answerKey": "A"}) + "\n",
        "give the example another folder")
    model = ScriptedModel(f"scripted/m{tag}", reply=relies_then_a)
    return potemkin_selfjudge(model, f"mcq:{dev}", questions=1, subquestions=2,
                              runs_dir=runs_dir, cache=cache).run_dir
