"""Small finished run folders of `imagine generate` and `imagine answer` made with scripted
models, for the tests that every run kind goes through (`RunKind.example`), and the scripted
question model they use."""

from __future__ import annotations

import re
from pathlib import Path

from verstehen.methods.imagination.api import imagine_answer, imagine_generate
from verstehen.testing.scripted import ScriptedModel


def invented(prompt: str, n: int = 0) -> str:
    """A well-formed question in the paper's template, number n; the designated answer is the
    longest."""
    topic = re.search(r"On the topic of (.+?),", prompt)
    return (f"Question: In {topic[1] if topic else 'science'}, what does Zorvian flux {n} "
            "obey?\nA. Dusk\nB. Mirrors\nC. The quiet law of rooms\nD. Salt\nAnswer: C")


def qm(name: str = "scripted/qm") -> ScriptedModel:
    """A scripted question model whose every question is a new one."""
    calls = iter(range(10**6))
    return ScriptedModel(name, reply=lambda p: invented(p, next(calls)))


def generate_example(runs_dir: Path, cache: Path, tag: str = "") -> Path:
    """Two direct questions on each of physics and law, written by `qm`."""
    return imagine_generate(qm(f"scripted/qm{tag}"), topics="physics,law", per_topic=2,
                            kinds="direct", runs_dir=runs_dir, cache=cache).run_dir


def answer_example(runs_dir: Path, cache: Path, tag: str = "") -> Path:
    """The questions of `generate_example` (made first) answered, in the question model's
    order, by a model that answers C and one that says the concept does not exist."""
    questions = generate_example(runs_dir, cache, tag)
    models = [ScriptedModel(f"scripted/c{tag}", reply=lambda p: "Answer: C"),
              ScriptedModel(f"scripted/no{tag}", reply=lambda p: "This concept does not exist.")]
    return imagine_answer(questions, models=models, shuffle=False, runs_dir=runs_dir,
                          cache=cache).run_dir
