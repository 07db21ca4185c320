"""Pooling runs (issue 18, items 1 and 3): runs of two seeds keep every question, a question
written twice counts once and is said so, run folders of the previous id scheme (slot ids)
are read as they were answered, and the warm-up defaults and figure follow the paper.

Question models are scripted: the question a sample gets depends on the seed the runner sends
for it, as a sampling model's does."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import verstehen.methods.imagination.run as imagine_run
from verstehen.engine.store import RunStore
from verstehen.errors import UserError
from verstehen.methods.imagination.api import (
    imagine_analyze,
    imagine_answer,
    imagine_generate,
    imagine_matrix,
)
from verstehen.methods.imagination.choices import shuffle_order
from verstehen.methods.imagination.generate import question_id
from verstehen.methods.imagination.runs import ANSWER, answer_records, read_runs
from verstehen.models.base import Completion, GenerateParams, Message, Usage
from verstehen.testing.scripted import ScriptedModel

# choice lengths 3, 4, 6 and 13: the length rank of choice A..D is 0..3
CHOICES = "A. Ash\nB. Dusk\nC. Mirror\nD. The quiet law"


class SeededQM(ScriptedModel):
    """Writes a question named after the sample's seed, with `answer` as the designated letter;
    five in a row (position k designates "ABCDA"[k-1]) when asked for a sequence."""

    def __init__(self, name: str = "scripted/qm", answer: str = "C") -> None:
        super().__init__(name)
        self.answer = answer

    async def generate(self, messages: list[Message], params: GenerateParams) -> Completion:
        """A question (or five) that only this seed writes."""
        prompt = messages[-1]["content"]
        self.calls.append(prompt)
        self.seeds.append(params.seed)
        topic = re.search(r"On the topic of (.+?),", prompt)
        stem = f"In {topic[1] if topic else 'science'}, what does flux {params.seed} obey?"
        if "five multiple choice questions" in prompt:
            text = "\n".join(f"Question {k}: {stem} (part {k})\n{CHOICES}\nAnswer: {'ABCDA'[k - 1]}"
                             for k in range(1, 6))
        else:
            text = f"Question: {stem}\n{CHOICES}\nAnswer: {self.answer}"
        return Completion(text, "stop", Usage(1, 1))


def always(letter: str) -> ScriptedModel:
    """An answer model that always answers `letter`."""
    return ScriptedModel("scripted/am", reply=lambda p: f"Answer: {letter}")


def where(tmp_path: Path) -> dict[str, Path]:
    """A private runs folder and cache."""
    return {"runs_dir": tmp_path / "runs", "cache": tmp_path / "calls.sqlite"}


def records(run: Path) -> list[dict]:
    """A run folder's records."""
    return [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]


def test_runs_of_two_seeds_pool_every_question(tmp_path):
    """Item 1: two generate runs (seeds 0 and 1) write different questions in the same slots;
    answering, the matrix and the analyses count all four (the slot ids made it two)."""
    # seed 0: the designated answer is C (length rank 2); seed 1: A (rank 0)
    runs = [imagine_generate(SeededQM(answer=letter), topics="physics", per_topic=2,
                             kinds="direct", seed=seed, **where(tmp_path)).run_dir
            for seed, letter in ((0, "C"), (1, "A"))]
    stems = [r["stem"] for run in runs for r in records(run)]
    assert len(set(stems)) == 4
    # one answer run over both: an AM that always says C is right on seed 0's two only
    both = imagine_answer(runs, models=[always("C")], shuffle=False, **where(tmp_path))
    (row,) = both.matrix
    assert (row.n, row.kappa) == (4, 0.5)
    # one answer run per question run, pooled by `imagine matrix`
    apart = [imagine_answer(run, models=[always("C")], shuffle=False, **where(tmp_path))
             for run in runs]
    (pooled,) = imagine_matrix(apart, out=tmp_path / "fig").matrix
    assert (pooled.n, pooled.kappa) == (4, 0.5)
    # length ranks over both runs: ranks 2, 2 (seed 0) and 0, 0 (seed 1)
    analysis = imagine_analyze(runs, out=tmp_path / "fig")
    (ranks,) = analysis.length_ranks
    assert ranks.fractions == (0.5, 0.0, 0.5, 0.0)
    deciles = imagine_analyze(apart, out=tmp_path / "fig").deciles
    assert sum(r.n for d in deciles for r in d.rates) == 4


def test_a_question_written_twice_counts_once_and_is_said(tmp_path, cli, capsys):
    """Item 1: a QM that writes one question for every sample: kept three times, a repeat
    twice; answered and counted once, and every step says so."""
    same = ScriptedModel("scripted/qm", reply=lambda p: f"Question: What is flux?\n{CHOICES}\n"
                                                        "Answer: B")
    generated = imagine_generate(same, topics="physics", per_topic=3, kinds="direct",
                                 **where(tmp_path))
    dq = generated.by_type["DQ"]
    assert (dq.kept, dq.repeated) == (3, 2)
    print(generated.text())
    header, _, row = capsys.readouterr().out.splitlines()[1:4]
    assert header.split()[:6] == ["type", "filled", "written", "kept", "repeats", "dropped"]
    assert row.split()[:7] == ["DQ", "3", "of", "3", "3", "3", "2"]
    answered = imagine_answer(generated, models=[always("B")], shuffle=False,
                              **where(tmp_path))
    assert answered.repeated_questions == 2 and answered.matrix[0].n == 1
    assert json.loads((answered.run_dir / "summary.json").read_text())[
        "repeated_questions"] == 2
    done = cli(["imagine", "analyze", str(generated.run_dir), str(answered.run_dir)])
    assert done.returncode == 0, done.stderr
    assert "2 of 3 questions read repeat one already read" in done.stdout
    assert "counted once" in done.stdout
    analysis = imagine_analyze([generated, answered], out=tmp_path / "fig")
    assert (analysis.pooling.questions, analysis.pooling.repeated_questions) == (3, 2)
    assert analysis.length_ranks[0].fractions == (0.0, 1.0, 0.0, 0.0)  # B: rank 1, once
    # the same answer run given twice is read once; a second run with the same AM repeats it
    again = imagine_answer(generated, models=[always("B")], shuffle=False, **where(tmp_path))
    matrix = imagine_matrix([answered, answered, again], out=tmp_path / "fig")
    assert matrix.matrix[0].n == 1
    assert (matrix.pooling.answers, matrix.pooling.repeated_answers) == (2, 1)
    shown = cli(["imagine", "matrix", str(answered.run_dir), str(again.run_dir), "--out",
                 str(tmp_path / "fig")])
    assert "1 of 2 answers read repeats an answer of the same AM" in shown.stdout


# ------------------------------------------------------------ runs of the previous id scheme

def slot_id(qm: str, topic: str, index: int) -> str:
    """The id the previous version gave a direct question: a hash of its slot only."""
    key = f"{qm}|knowledge|DQ|{topic}|{index}|None"
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def old_question(index: int, stem: str, answer: int) -> dict:
    """A direct question record as the previous version wrote it."""
    return {"kind": "question", "id": slot_id("scripted/qm", "physics", index),
            "qm": "scripted/qm", "qtype": "DQ", "content": "knowledge", "topic": "physics",
            "index": index, "position": None, "context": None, "reply": "", "status": "ok",
            "reason": None, "stem": stem, "choices": ["Ash", "Dusk", "Mirror", "The quiet law"],
            "answer": answer, "slot": index, "try": 1}


def old_runs(tmp_path: Path) -> tuple[list[Path], Path]:
    """Two generate runs of the previous version (seeds 0 and 1: the same slot ids, different
    questions), and its answer run over both, which answered seed 1's only."""
    runs = []
    for seed in (0, 1):
        store = RunStore.create(tmp_path / "old", command="imagine-generate", argv=[],
                                config={"seed": seed}, seed=seed, models=[])
        for index in (0, 1):
            store.append(old_question(index, f"What does flux {seed}-{index} obey?", 2))
        runs.append(store.path)
    answers = RunStore.create(tmp_path / "old", command="imagine-answer", argv=[], config={
        "questions": [str(r) for r in runs], "models": ["scripted/am"], "seed": 0}, seed=0,
        models=[])
    for index in (0, 1):
        answers.append({"kind": "answer", "question_id": slot_id("scripted/qm", "physics", index),
                        "qm": "scripted/qm", "am": "scripted/am", "qtype": "DQ",
                        "content": "knowledge", "topic": "physics", "position": None,
                        "question_chars": 40 + index, "correct_rank": 2, "outcome": "wrong",
                        "score": None})
    return runs, answers.path


def test_runs_of_the_previous_id_scheme_are_read_as_they_were_answered(tmp_path):
    """Older runs: questions get content ids when read (both seeds' count); an older answer
    run's answers go to the questions it answered; re-answering shows each question in the
    order the older run showed it; pooling old and new answers counts each once."""
    (run0, run1), old_answers = old_runs(tmp_path)
    # the older run answered seed 1's questions (its loader kept the last of a shared id)
    mapped = answer_records(read_runs([old_answers], (ANSWER,))).records
    assert {a["question_id"] for a in mapped} == {question_id(q) for q in records(run1)}
    analysis = imagine_analyze([run0, run1, old_answers], out=tmp_path / "fig")
    assert (analysis.pooling.questions, analysis.pooling.repeated_questions) == (4, 0)
    assert analysis.pooling.unmatched_answers == 0
    assert sum(r.n for d in analysis.deciles for r in d.rates) == 2

    new = imagine_answer([run0, run1], models=[always("C")], **where(tmp_path))
    answers = records(new.run_dir)
    assert len(answers) == 4
    # the shuffle of seed 1's questions is the older run's: it came from the slot id
    stored = {question_id(q): q for run in (run0, run1) for q in records(run)}
    assert {a["question_id"] for a in answers} == set(stored)
    for a in answers:
        assert a["order"] == shuffle_order(stored[a["question_id"]]["id"], 0)
    # old and new answers of the same AM to seed 1's two questions: counted once each
    pooled = imagine_matrix([old_answers, new.run_dir], out=tmp_path / "fig")
    assert pooled.matrix[0].n == 4
    assert (pooled.pooling.answers, pooled.pooling.repeated_answers) == (6, 2)


def test_an_older_answer_run_without_its_question_runs_is_said(tmp_path, cli):
    (run0, run1), old_answers = old_runs(tmp_path)
    for run in (run0, run1):
        (run / "run.json").unlink()
    done = cli(["imagine", "matrix", str(old_answers), "--json"])
    assert json.loads(done.stdout)["pooling"]["unmatched_answers"] == 2
    text = cli(["imagine", "matrix", str(old_answers)]).stdout
    assert "2 answers of runs made before question ids hashed the question" in text


# ------------------------------------------------------------------ warm-up (item 3)

def test_sequential_generation_defaults_to_the_papers_ten_replies(tmp_path):
    """Item 3: "we run this prompt 10 times on each topic" (section 3.4); direct and context
    questions stay at 20."""
    qm = SeededQM()
    generated = imagine_generate(qm, topics="physics", kinds="direct,sequential",
                                 **where(tmp_path))
    sq, dq = generated.by_type["SQ"], generated.by_type["DQ"]
    assert (sq.slots, sq.asked, sq.kept) == (10, 50, 50)
    assert dq.slots == 20 and len(qm.calls) == 30
    explicit = imagine_generate(SeededQM(), topics="physics", kinds="sequential", per_topic=3,
                                **where(tmp_path))
    assert explicit.by_type["SQ"].slots == 3


def test_the_cli_leaves_the_counts_to_the_paper(cli, monkeypatch):
    """`imagine generate` without --per-topic plans the paper's counts per kind."""
    seen = []

    async def capture(model, plan, **_):
        seen.append(plan)
        raise UserError("stop here")

    monkeypatch.setattr(imagine_run, "generate_questions", capture)
    cli(["imagine", "generate", "--kind", "direct,context,sequential", "--no-progress"])
    (plan,) = seen
    assert [plan.count(k) for k in plan.kinds] == [20, 20, 10]


def test_analyze_draws_figure_9_with_its_right_panel(tmp_path, cli):
    """Length rank by position (Figure 9, right) from the questions, beside κ and α by
    position: each position's designated answer here has one rank, "ABCDA" -> 0, 1, 2, 3, 0."""
    generated = imagine_generate(SeededQM(), topics="physics,law", per_topic=2,
                                 kinds="sequential", **where(tmp_path))
    answered = imagine_answer(generated, models=[always("A")], shuffle=False, **where(tmp_path))
    analysis = imagine_analyze([generated, answered], out=tmp_path / "fig")
    assert [(r.position, r.n) for r in analysis.position_ranks] == [(k, 4) for k in range(1, 6)]
    assert [r.fractions.index(1.0) for r in analysis.position_ranks] == [0, 1, 2, 3, 0]
    # the AM always says A: right at positions 1 and 5
    (am,) = analysis.positions
    assert [r.kappa for r in am.rates] == [1.0, 0.0, 0.0, 0.0, 1.0]
    assert analysis.warmup_png == tmp_path / "fig" / "warm-up.png"
    assert analysis.warmup_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    out = json.loads(cli(["imagine", "analyze", str(generated.run_dir), "--json",
                          "--out", str(tmp_path / "fig2")]).stdout)
    assert out["position_ranks"]["4"] == {"n": 4, "fractions": [0.0, 0.0, 0.0, 1.0]}
    assert (tmp_path / "fig2" / "warm-up.png").is_file()
    text = cli(["imagine", "analyze", str(generated.run_dir), "--out", str(tmp_path / "f3")])
    assert "length rank of the designated answer of sequential questions by position" in \
        text.stdout and f"figure: {tmp_path / 'f3' / 'warm-up.png'}" in text.stdout


def test_no_sequential_questions_no_warmup_figure(tmp_path):
    generated = imagine_generate(SeededQM(), topics="physics", per_topic=1, kinds="direct",
                                 **where(tmp_path))
    analysis = imagine_analyze(generated, out=tmp_path / "fig")
    assert analysis.position_ranks == () and analysis.warmup_png is None
    assert not (tmp_path / "fig" / "warm-up.png").exists()
