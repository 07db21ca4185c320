"""A run stopped by Ctrl-C part way goes on from Python with `resume=`: every method's run is
interrupted by a real SIGINT sent from inside a model call, marked interrupted in its
run.json, and resumed into the same folder; the resumed run finishes with as many records as
an uninterrupted one, and together the two parts pay for no call twice beyond those that were
in flight when the interrupt came."""

from __future__ import annotations

import json
import os
import re
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from verstehen.api import (
    audit,
    certify,
    consistency,
    imagine_answer,
    imagine_generate,
    potemkin_incoherence,
    potemkin_run,
)
from verstehen.testing.scripted import ScriptedModel

from consistency.test_consistency_api import write_data

IN_FLIGHT = ScriptedModel.max_connections  # calls that may be under way at the interrupt


def question(prompt: str) -> str:
    """A well-formed invented question in the paper's template, the same for one prompt."""
    topic = re.search(r"On the topic of (.+?),", prompt)
    n = sum(map(ord, prompt)) % 1000
    return (f"Question: In {topic[1] if topic else 'science'}, what does principle {n} of "
            "the Zorvian school state?\nA. Flux doubles\nB. Flux halves\nC. Flux is kept\n"
            "D. Flux vanishes\nAnswer: C")


def csqa_files(folder: Path) -> dict[str, Path]:
    """The consistency tests' three CSQA questions and knowledge base, as files."""
    folder.mkdir(parents=True, exist_ok=True)
    questions, kb = write_data(folder)
    return {"questions": questions, "kb": kb}


def question_run(folder: Path) -> Path:
    """A generate run of a scripted question model, to be answered."""
    count = iter(range(1_000_000))
    writer = ScriptedModel("scripted/qm", reply=lambda p: question(f"{p} {next(count)}"))
    return imagine_generate(writer, topics=("physics", "law", "art"), per_topic=3,
                            kinds=("direct",),
                            runs_dir=folder / "runs", cache=folder / "qm.sqlite").run_dir


# each method: how to call it on a model into a folder (extra keyword arguments pass through)
Method = Callable[..., Any]
METHODS: dict[str, Callable[[Path], Method]] = {
    "certify": lambda _: lambda m, **kw: certify(m, "arithmetic", questions=40, rid=0.2, pg=0.5,
                                                rephrase=4, **kw),
    "potemkin": lambda _: lambda m, **kw: potemkin_run(m, concepts="game-theory/pure-nash",
                                                  **kw),
    "incoherence": lambda _: lambda m, **kw: potemkin_incoherence(
        m, concepts="game-theory/pure-nash", per_concept=3, **kw),
    "imagine-generate": lambda _: lambda m, **kw: imagine_generate(
        m, topics=("physics", "law", "art"), per_topic=3, kinds=("direct",), **kw),
    "imagine-answer": lambda tmp: (lambda run: lambda m, **kw: imagine_answer(
        run, models=[m], **kw))(question_run(tmp / "questions")),
    "consistency": lambda tmp: (lambda files: lambda m, **kw: consistency(
        m, resamples=20, **files, **kw))(csqa_files(tmp / "data")),
    "audit": lambda _: lambda m, **kw: audit(m, subjects="game-theory/pure-nash",
                                            max_questions=32, first_look=8, **kw),
}


class Interruptible(ScriptedModel):
    """The scripted model whose call number `interrupt_at` (generation or log-probabilities)
    sends this process SIGINT, as Ctrl-C does."""

    def __init__(self, interrupt_at: int | None) -> None:
        super().__init__("scripted/m", reply=question)  # one name: one cache identity
        self.interrupt_at = interrupt_at

    async def generate(self, messages: Any, params: Any) -> Any:
        """A scripted reply, or the interrupt."""
        self._maybe_interrupt()
        return await super().generate(messages, params)

    async def logprobs(self, context: str, continuations: list[str]) -> list[float]:
        """Scripted scores, or the interrupt."""
        self._maybe_interrupt()
        return await super().logprobs(context, continuations)

    def _maybe_interrupt(self) -> None:
        if len(self.calls) + 1 == self.interrupt_at:
            self.interrupt_at = None  # one Ctrl-C
            os.kill(os.getpid(), signal.SIGINT)


def model(interrupt_at: int | None = None) -> Interruptible:
    """The scripted model; with `interrupt_at`, a Ctrl-C comes at its call of that number."""
    return Interruptible(interrupt_at)


def record_lines(run: Path) -> list[str]:
    """Every record line of a run folder and of the run folders inside it."""
    return [line for path in sorted(run.rglob("records.jsonl"))
            for line in path.read_text().splitlines()]


def statuses(run: Path) -> dict[str, str]:
    """The status in every run.json of a run folder and the folders inside it, by command."""
    return {(info := json.loads(p.read_text()))["command"]: info["status"]
            for p in run.rglob("run.json")}


@pytest.mark.parametrize("method", sorted(METHODS))
def test_interrupted_run_resumes_from_python(method: str, tmp_path: Path) -> None:
    """Ctrl-C half way, then `resume=`: the same records as a run never stopped, each call
    paid once (beyond those in flight), and run.json says interrupted, then done."""
    call = METHODS[method](tmp_path)
    whole = model()
    call(whole, runs_dir=tmp_path / "whole", cache=tmp_path / "whole.sqlite")
    [whole_run] = (tmp_path / "whole").iterdir()
    total = len(whole.calls)
    assert total >= 6, f"{method} made too few calls to stop half way"

    where = {"runs_dir": tmp_path / "runs", "cache": tmp_path / "calls.sqlite"}
    first = model(interrupt_at=total // 2)
    with pytest.raises(KeyboardInterrupt):
        call(first, **where)
    [run] = where["runs_dir"].iterdir()
    assert set(statuses(run).values()) <= {"interrupted", "done"}
    assert json.loads((run / "run.json").read_text())["status"] == "interrupted"
    assert not (run / "summary.json").exists()

    second = model()
    call(second, resume=run, **where)
    assert list(where["runs_dir"].iterdir()) == [run]  # no second folder
    assert set(statuses(run).values()) == {"done"}
    assert statuses(run).keys() == statuses(whole_run).keys()  # each step once, no copies
    assert len(record_lines(run)) == len(record_lines(whole_run))
    assert 0 < len(second.calls) < total  # the first part's answers came from the cache
    assert len(first.calls) + len(second.calls) <= total + IN_FLIGHT
