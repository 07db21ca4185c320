"""The declared parameters of `imagine generate|answer` as both faces read them, and the typed
records: every record a run writes has exactly the keys its TypedDict declares."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from verstehen.cli.main import build_parser
from verstehen.cli.options import options_from
from verstehen.errors import UserError
from verstehen.methods.imagination.api import imagine_answer, imagine_generate
from verstehen.methods.imagination.options import (
    ImagineAnswerOptions,
    ImagineGenerateOptions,
    generate_plan,
)
from verstehen.methods.imagination.records import AnswerRecord, FictionRecord, QuestionRecord
from verstehen.testing.scripted import ScriptedModel

RECORD_KINDS: dict[str, Any] = {"question": QuestionRecord, "answer": AnswerRecord,
                                "fiction": FictionRecord}


def test_the_cli_takes_several_question_runs_and_no_shuffle(tmp_path: Path) -> None:
    """`--questions A B` (one flag, two folders), `--model` twice and `--no-shuffle` are the
    options the API takes as questions=, models= and shuffle=False."""
    args = build_parser().parse_args(
        ["imagine", "answer", "--questions", "a", "b", "--model", "local/x", "--model",
         "openai/y", "--no-shuffle", "--choice-e"])
    options = options_from(ImagineAnswerOptions, args)
    assert options.questions == (Path("a"), Path("b"))
    assert options.models == ("local/x", "openai/y")
    assert (options.shuffle, options.choice_e, options.method) == (False, True, "generate")
    plain = options_from(ImagineAnswerOptions, build_parser().parse_args(
        ["imagine", "answer", "--questions", "a"]))
    assert plain.models == ("local/smollm2-135m",) and plain.shuffle


def test_out_of_range_values_are_refused_by_name_from_python() -> None:
    for bad, name in (({"per_topic": 0}, "per_topic"), ({"tries": 0}, "tries"),
                      ({"temperature": 10.5}, "temperature"), ({"seed": -1}, "seed"),
                      ({"content": "poetry"}, "content")):
        with pytest.raises(UserError, match=name):
            ImagineGenerateOptions("local/x", **bad)
    for bad, name in (({"method": "guess"}, "method"), ({"prompt_variant": "7"},
                                                         "prompt_variant"),
                      ({"max_tokens": 0}, "max_tokens")):
        with pytest.raises(UserError, match=name):
            ImagineAnswerOptions("runs/x", **bad)


def test_the_plan_reads_comma_lists_and_defaults_topics_by_content() -> None:
    """Topics default to the paper's 17 college subjects (section 2.2) or its 10 story topics
    (appendix H); kinds and topics given as text are split at commas."""
    assert len(generate_plan(ImagineGenerateOptions("local/x")).topics) == 17
    story = generate_plan(ImagineGenerateOptions("local/x", content="story"))
    assert len(story.topics) == 10
    plan = generate_plan(ImagineGenerateOptions("local/x", kinds="direct, sequential",
                                                topics=" law ,physics"))
    assert (plan.kinds, plan.topics) == (("direct", "sequential"), ("law", "physics"))
    with pytest.raises(UserError, match="sequential"):
        generate_plan(ImagineGenerateOptions("local/x", kinds="sequential", content="story"))


def invented(prompt: str, n: int) -> str:
    """A question in the paper's template (number n), or a context paragraph when asked."""
    if "Concept:" in prompt:
        return f"Concept: Zorvian flux {n}\nContent: Zorvian flux {n} obeys the quiet law."
    topic = re.search(r"On the topic of (.+?),", prompt)
    return (f"Question: In {topic[1] if topic else 'science'}, what does Zorvian flux {n} "
            "obey?\nA. Dusk\nB. Mirrors\nC. The quiet law of rooms\nD. Salt\nAnswer: C")


def records_of(run: Path) -> list[dict[str, Any]]:
    """Every record of a run folder, as JSON."""
    return [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]


def test_every_record_written_has_the_keys_its_kind_declares(tmp_path: Path) -> None:
    """Questions (direct, context, sequential, one unparsable), answers by every method
    (with a judge for free responses) and fictionality verdicts: each record's keys are its
    TypedDict's, the required ones all there."""
    calls = iter(range(10**6))
    qm = ScriptedModel("scripted/qm", reply=lambda p: "no question here" if "physics" in p
                       else invented(p, next(calls)))
    folders = {"runs_dir": tmp_path / "runs", "cache": tmp_path / "calls.sqlite"}
    generated = imagine_generate(qm, topics="law,physics", per_topic=1,
                                 kinds="direct,context,sequential", **folders)
    runs = [generated.run_dir]
    am = ScriptedModel("scripted/am", reply=lambda p: "80" if "impartial" in p else "Answer: C")
    for method in ("generate", "letter", "perplexity"):
        runs.append(imagine_answer(generated, models=[am], method=method, fictionality=True,
                                   **folders).run_dir)
    runs.append(imagine_answer(generated, models=[am], method="free", judge=am,
                               **folders).run_dir)
    seen: set[str] = set()
    for run in runs:
        for record in records_of(run):
            declared = RECORD_KINDS[record["kind"]]
            assert declared.__required_keys__ <= set(record) <= set(declared.__annotations__)
            seen.add(record["kind"] + " " + record.get("status", record.get("method", "")))
    assert {"question ok", "question dropped", "answer generate", "answer letter",
            "answer perplexity", "answer free", "fiction "} <= seen
