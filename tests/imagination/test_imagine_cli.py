"""The imagine commands from the command line (in process) without a model: matrix and analyze
over hand-made run folders (numbers computed by hand), and bad input ending in one line and
exit 2."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from verstehen.engine.store import RunStore

from conftest import cli_error


def make_run(tmp_path: Path, command: str, records: list[dict], config: dict | None = None
             ) -> Path:
    """A run folder holding `records`."""
    store = RunStore.create(tmp_path / "made", command=command, argv=[], config=config or {},
                            seed=0, models=[])
    for record in records:
        store.append(record)
    return store.path


def question(qid: str, qm: str, topic: str, stem: str, choices: list[str], answer: int,
             status: str = "ok") -> dict:
    """A question record."""
    return {"kind": "question", "id": qid, "qm": qm, "qtype": "DQ", "content": "knowledge",
            "topic": topic, "index": 0, "position": None, "context": None, "reply": "",
            "status": status, "reason": None if status == "ok" else "no choices",
            "stem": stem, "choices": choices, "answer": answer}


def answer(qid: str, qm: str, am: str, outcome: str, chars: int = 40) -> dict:
    """An answer record."""
    return {"kind": "answer", "question_id": qid, "qm": qm, "am": am, "qtype": "DQ",
            "content": "knowledge", "topic": "physics", "position": None,
            "question_chars": chars, "correct_rank": 0, "outcome": outcome, "score": None}


def answers_run(tmp_path: Path) -> Path:
    """QM q1 answered by a1: 3 correct, 1 wrong, 1 refused; by a2: 1 correct, 1 unparsed."""
    rows = [answer(f"x{i}", "q1", "a1", o)
            for i, o in enumerate(["correct", "correct", "correct", "wrong", "refused"])]
    rows += [answer("x0", "q1", "a2", "correct"), answer("x1", "q1", "a2", "unparsed")]
    return make_run(tmp_path, "imagine-answer", rows, {"questions": []})


def test_matrix_numbers_are_the_hand_computed_rates(cli, tmp_path):
    run = answers_run(tmp_path)
    done = cli(["imagine", "matrix", str(run), "--out", str(tmp_path / "fig")])
    assert done.returncode == 0, done.stderr
    rows = {r["am"]: r for r in csv.DictReader((tmp_path / "fig" / "matrix.csv").open())}
    # a1: κ = 3/4, α = 4/5; a2: κ = 1/1, α = 1/1, one unparsed
    assert float(rows["a1"]["kappa"]) == 0.75 and float(rows["a1"]["alpha"]) == 0.8
    assert float(rows["a1"]["kappa_se"]) == (0.75 * 0.25 / 4) ** 0.5
    assert rows["a2"]["unparsed"] == "1" and float(rows["a2"]["kappa"]) == 1.0
    assert (tmp_path / "fig" / "matrix.png").read_bytes()[:4] == b"\x89PNG"
    assert "0.75" in done.stdout and "0.80" in done.stdout


def test_matrix_json_and_default_folder(cli, tmp_path):
    run = answers_run(tmp_path)
    done = cli(["imagine", "matrix", str(run), "--json"])
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert {(r["am"], r["answered"], r["declined"]) for r in out["matrix"]} == {
        ("a1", 4, 1), ("a2", 1, 0)}
    # outputs go to a folder of the command's own under the runs folder; the input is only read
    png = Path(out["matrix_png"])
    assert png.parent.parent == tmp_path / "runs" and "-imagine-matrix-" in png.parent.name
    assert png.read_bytes()[:4] == b"\x89PNG" and not (run / "matrix.png").exists()


def test_analyze_length_ranks_and_similarity(cli, tmp_path):
    # q1's answers: longest ("ccccc" among a/bb/ddd) and shortest once each -> [1/2, 0, 0, 1/2]:
    # b is a again (same QM, topic, text, answer), counted once
    qs = [question("a", "q1", "physics", "zorb flux", ["a", "bb", "ccccc", "ddd"], 2),
          question("b", "q1", "physics", "zorb flux", ["a", "bb", "ccccc", "ddd"], 2),
          question("c", "q1", "law", "court of zorbs", ["a", "bb", "ccc", "dddd"], 0),
          question("d", "q2", "physics", "zorb flux", ["a", "bb", "ccccc", "ddd"], 1),
          question("e", "q1", "law", "broken", [], 0, status="dropped")]
    run = make_run(tmp_path, "imagine-generate", qs)
    done = cli(["imagine", "analyze", str(run), "--json"])
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    ranks = out["length_ranks"]["q1 knowledge DQ"]
    assert ranks == [0.5, 0.0, 0.0, 0.5]
    assert out["length_ranks"]["q2 knowledge DQ"] == [0.0, 1.0, 0.0, 0.0]
    assert out["pooling"] == {"answers": 0, "repeated_answers": 0, "unmatched_answers": 0,
                              "questions": 4, "repeated_questions": 1}
    sims = out["similarity"]["knowledge DQ questions"]
    # q1 and q2 share only physics, where their questions have the same text: cosine 1
    assert abs(sims["q1 | q2"] - 1.0) < 1e-9
    png = Path(out["figures"]["length_ranks"])
    assert png.parent.parent == tmp_path / "runs" and "-imagine-analyze-" in png.parent.name
    assert png.read_bytes()[:4] == b"\x89PNG" and not (run / "length-ranks.png").exists()


def test_bad_input_is_one_line_and_exit_2(cli, tmp_path):
    cli_error(cli, ["imagine", "generate", "--kind", "bogus"], "--kind", "bogus")
    cli_error(cli, ["imagine", "generate", "--kind", "sequential", "--content", "story"],
              "sequential")
    cli_error(cli, ["imagine", "generate", "--per-topic", "0"], "--per-topic")
    cli_error(cli, ["imagine", "generate", "--topics", " , "], "--topics")
    cli_error(cli, ["imagine", "answer", "--questions", str(tmp_path)], "not a run folder")
    answers = answers_run(tmp_path)
    cli_error(cli, ["imagine", "answer", "--questions", str(answers)], "imagine-answer")
    questions = make_run(tmp_path, "imagine-generate",
                         [question("a", "q1", "law", "x", ["a", "b", "c", "d"], 0)])
    cli_error(cli, ["imagine", "answer", "--questions", str(questions), "--method", "free"],
              "--judge")
    cli_error(cli, ["imagine", "answer", "--questions", str(questions), "--method",
                    "perplexity", "--choice-e"], "--choice-e")
    cli_error(cli, ["imagine", "answer", "--questions", str(questions), "--method", "letter",
                    "--prompt-variant", "cot"], "--prompt-variant")
    dropped = make_run(tmp_path, "imagine-generate",
                       [question("e", "q1", "law", "x", [], 0, status="dropped")])
    cli_error(cli, ["imagine", "answer", "--questions", str(dropped)], "no usable questions")
    cli_error(cli, ["imagine", "matrix", str(questions)], "imagine-generate")
    cli_error(cli, ["imagine", "answer", "--questions", str(questions), "--model", "nope/x"],
              "nope")
    odd = make_run(tmp_path, "imagine-answer", [answer("x0", "q1", "a1", "maybe")],
                   {"questions": []})
    cli_error(cli, ["imagine", "matrix", str(odd)], "unknown answer outcome 'maybe'", str(odd))
    cli_error(cli, ["imagine", "analyze", str(odd)], "unknown answer outcome 'maybe'")
    # checked flag types: a bad number stops while parsing
    cli_error(cli, ["imagine", "generate", "--tries", "0"], "--tries")
    cli_error(cli, ["imagine", "generate", "--temperature", "-1"], "--temperature")
    cli_error(cli, ["imagine", "answer", "--questions", str(questions), "--max-tokens", "0"],
              "--max-tokens")
    # nothing was asked of a model: no run folder was made
    assert not (tmp_path / "runs").exists()


def test_pooled_runs_count_each_answer_once(cli, tmp_path):
    """The same answer run given twice (or two runs of one command) is not double-counted."""
    run = answers_run(tmp_path)
    done = cli(["imagine", "matrix", str(run), str(run), "--json"])
    assert done.returncode == 0, done.stderr
    rows = {r["am"]: r for r in json.loads(done.stdout)["matrix"]}
    assert rows["a1"]["n"] == 5 and rows["a2"]["n"] == 2


def test_analyze_and_matrix_in_words(cli, tmp_path):
    """The text printouts: each analysis with data, and a matrix of runs without answers."""
    qs = [question("a", "q1", "physics", "zorb flux", ["a", "bb", "ccccc", "ddd"], 2),
          question("b", "q2", "physics", "zorb flux", ["a", "bb", "ccccc", "ddd"], 2)]
    questions = make_run(tmp_path, "imagine-generate", qs)
    answers = make_run(tmp_path, "imagine-answer",
                       [answer("a", "q1", "a1", "correct"), answer("b", "q2", "a1", "wrong")],
                       {"questions": [str(questions)]})
    done = cli(["imagine", "analyze", str(answers), "--out", str(tmp_path / "fig")])
    assert done.returncode == 0, done.stderr
    assert f"figure: {tmp_path / 'fig' / 'length-ranks.png'}" in done.stdout
    assert "by question length, 2 equal groups" in done.stdout
    assert "knowledge DQ questions:" in done.stdout and "1.00" in done.stdout
    empty = make_run(tmp_path, "imagine-answer", [], {"questions": []})
    done = cli(["imagine", "matrix", str(empty)])
    assert done.returncode == 0 and done.stderr == "no answers in these runs\n"
    assert "0 of 0 answers unparsed or failed" in done.stdout
    assert cli(["imagine", "analyze", str(empty)]).stdout == "nothing to analyze in these runs\n"
