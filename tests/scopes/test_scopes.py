"""The arithmetic and multiple-choice scopes, the MCQ loaders and the scope registry."""

from __future__ import annotations

import gzip
import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from verstehen.data.mcq import load_mcq
from verstehen.errors import UserError
from verstehen.methods.certification.scopes import BUILTIN_SCOPES, get_scope, scope_listing
from verstehen.methods.certification.scopes.arithmetic import (
    INSTRUCTION,
    ArithmeticScope,
    arithmetic_scope,
)
from verstehen.scopes.base import ExplainableScope, Question, Scope
from verstehen.scopes.mcq import MCQScope

from conftest import SHARED_DATA, shared_data

DATA = SHARED_DATA


@pytest.fixture
def data() -> Path:
    return shared_data()


def truth(value: float, op: str = "+") -> Question:
    """A question whose true answer is `value` (grading reads only the answer)."""
    return Question(id="q", prompt="", answer=value, family=op, data={"a": 0, "b": 0, "op": op})


# ---------------------------------------------------------------- arithmetic scoring


@pytest.mark.parametrize(
    ("t", "reply", "score", "outcome"),
    [
        (579.0, "579", 1.0, "correct"),
        (579.0, "The answer is 579.00", 1.0, "correct"),
        (1000.0, "1000.0005", 1.0, "correct"),  # r = 5e-7: six digits right is full credit
        (1000.0, "1001", 0.5, "partial"),  # r = 1e-3: 3 of 6 digits
        (1000.0, "1010", 1 / 3, "partial"),  # r = 1e-2
        (1000.0, "1100", 1 / 6, "partial"),  # r = 1e-1
        (1000.0, "101", 0.01, "partial"),  # r = 0.899: clipped up to 0.01, not ridiculous
        (1000.0, "10000", 0.0, "wrong"),  # 10x too big
        (1000.0, "100", 0.0, "wrong"),  # 10x too small
        (1000.0, "99.9", 0.0, "wrong"),
        (1000.0, "-1000", 0.0, "wrong"),  # wrong sign
        (-250.5, "250.5", 0.0, "wrong"),
        (-250.5, "-250.5", 1.0, "correct"),
        (1000.0, "0", 0.0, "wrong"),
        (1000.0, "banana", 0.0, "unparsed"),
        (1000.0, "I don't know", 0.2, "idk"),
        # truth below the operands' precision (0.01): magnitudes count as 0.01
        (0.0003, "0", -math.log10(0.0003 / 0.01) / 6, "partial"),
        (0.0003, "0.01", 0.01, "partial"),  # r = 0.97
        (0.0, "0", 1.0, "correct"),
        (0.0, "0.05", 0.01, "partial"),  # 5x the precision: poor, not ridiculous
        (0.0, "1", 0.0, "wrong"),  # 100x the precision
    ],
)
def test_arithmetic_scores(t: float, reply: str, score: float, outcome: str) -> None:
    graded = arithmetic_scope("arithmetic").grade(truth(t), reply)
    assert graded.score == pytest.approx(score, abs=1e-9)
    assert graded.outcome == outcome
    assert graded.ridiculous == (score == 0.0)


def test_arithmetic_score_is_grade_score() -> None:
    scope = arithmetic_scope("arithmetic")
    assert scope.score(truth(1000.0), "1001") == scope.grade(truth(1000.0), "1001").score


def test_integer_scope_needs_exact_answers() -> None:
    small = arithmetic_scope("arithmetic/small")
    assert small.grade(truth(5820.0), "5820").outcome == "correct"
    near = small.grade(truth(5820.0), "5821")
    assert near.outcome == "partial"
    assert near.score == pytest.approx(-math.log10(1 / 5820) / 6)
    assert small.grade(truth(12.0), "I don't know").score == 0.0  # idk_score 0 here
    big = ArithmeticScope(integers=True, high=1_000_000)
    t = 999_999 * 999_999
    off_by_one = big.grade(truth(float(t), "*"), str(t + 1))  # r = 1e-12, yet not exact
    assert off_by_one.outcome == "partial"
    assert off_by_one.score == pytest.approx(5 / 6)
    assert big.grade(truth(float(t), "*"), f"{t:,}").score == 1.0


# ---------------------------------------------------------------- arithmetic sampling


def draws(scope: ArithmeticScope, n: int, seed: int = 0) -> list[Question]:
    rng = np.random.default_rng(seed)
    return [scope.sample(rng) for _ in range(n)]


def test_sampling_is_reproducible() -> None:
    scope = arithmetic_scope("arithmetic")
    assert draws(scope, 50, seed=7) == draws(scope, 50, seed=7)
    assert draws(scope, 50, seed=7) != draws(scope, 50, seed=8)


def test_operands_in_range_and_answers_right() -> None:
    scope = arithmetic_scope("arithmetic")
    for q in draws(scope, 4000):
        a, b, op = q.data["a"], q.data["b"], q.data["op"]
        assert 0 <= a <= 1_000_000 and 0 <= b <= 1_000_000
        assert round(a * 100) == pytest.approx(a * 100) and round(b * 100) == pytest.approx(b * 100)
        assert q.family == op and q.id == f"{a:.2f}{op}{b:.2f}"
        assert op != "/" or b != 0
        expected = {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else 0}[op]
        assert q.answer == pytest.approx(expected, rel=1e-12, abs=1e-9)


def test_small_scope_sampling() -> None:
    for q in draws(arithmetic_scope("arithmetic/small"), 4000):
        a, b, op = q.data["a"], q.data["b"], q.data["op"]
        assert isinstance(a, int) and isinstance(b, int) and 0 <= a <= 99 and 0 <= b <= 99
        if op == "/":
            assert b >= 1 and a % b == 0 and q.answer == a // b  # exact division
        assert q.answer == float(int(q.answer))


def test_no_division_by_zero_even_when_zero_is_likely() -> None:
    scope = ArithmeticScope(low=0.0, high=0.02, decimals=2, ops=("/",))  # b in {0, .01, .02}
    bs = Counter(q.data["b"] for q in draws(scope, 2000))
    assert 0.0 not in bs and set(bs) <= {0.01, 0.02}


def test_ops_and_phrasings_uniform() -> None:
    qs = draws(arithmetic_scope("arithmetic"), 8000, seed=3)
    ops = Counter(q.family for q in qs)
    assert set(ops) == {"+", "-", "*", "/"}
    assert all(abs(n / 8000 - 0.25) < 0.02 for n in ops.values())  # about 4 standard errors
    phrasings = Counter(q.phrasing for q in qs)
    assert set(phrasings) == set(range(arithmetic_scope("arithmetic").phrasings))
    assert all(abs(n / 8000 - 1 / len(phrasings)) < 0.02 for n in phrasings.values())


def test_paraphrase_invariance() -> None:
    scope = arithmetic_scope("arithmetic")
    assert scope.phrasings >= 4
    for q in draws(scope, 200, seed=11):
        t = q.answer
        replies = [repr(t), f"{t * 1.001}", f"{t * 10}", f"{-t}", f"{t:,.0f}", "I don't know",
                   "banana", f"The answer is {t * 0.9}."]
        versions = [scope.rephrase(q, k) for k in range(scope.phrasings)]
        assert len({v.prompt for v in versions}) == scope.phrasings
        for v in versions:
            assert (v.id, v.answer, v.data, v.family) == (q.id, q.answer, q.data, q.family)
            assert v.prompt.endswith("\n" + INSTRUCTION)
        for reply in replies:
            assert len({scope.grade(v, reply) for v in versions}) == 1
    with pytest.raises(ValueError):
        scope.rephrase(q, scope.phrasings)


def test_arithmetic_is_explainable() -> None:
    scope = arithmetic_scope("arithmetic")
    assert isinstance(scope, ExplainableScope) and isinstance(scope, Scope)
    assert scope.families == {"+": 0.25, "-": 0.25, "*": 0.25, "/": 0.25}
    assert scope.program_entry == "solve"
    rng = np.random.default_rng(0)
    q = scope.sample_family(rng, "*")
    assert q.family == "*" and q.data["op"] == "*"
    prompt = scope.program_prompt(q)
    assert "solve(a, b)" in prompt and "```python" in prompt and '"a * b"' in prompt
    a, b = scope.program_args(q)
    assert (a, b) == (q.data["a"], q.data["b"])
    assert scope.grade_output(q, a * b).score == 1.0
    assert scope.grade_output(q, np.float64(a * b)).score == 1.0
    small_q = arithmetic_scope("arithmetic/small").sample_family(rng, "+")
    assert scope.grade_output(small_q, np.int64(7)).outcome != "unparsed"  # a number too
    assert scope.grade_output(q, -a * b).score == 0.0
    for bad in ["42", None, True, float("nan"), float("inf"), [1], 10**400]:
        graded = scope.grade_output(q, bad)
        assert (graded.score, graded.outcome) == (0.0, "unparsed")
    with pytest.raises(ValueError):
        scope.sample_family(rng, "%")


# ---------------------------------------------------------------- MCQ loaders (real data)


def test_load_csqa(data: Path) -> None:
    items = load_mcq(data / "csqa" / "dev_rand_split.jsonl")
    assert len(items) == 1221 and len({i.id for i in items}) == 1221
    assert all(i.labels == list("ABCDE") and len(i.choices) == 5 for i in items)
    assert all(i.answer in i.labels and i.subject is None for i in items)


def test_csqa_without_answers(data: Path) -> None:
    with pytest.raises(UserError, match="has no answer key; use a file with answers"):
        load_mcq(data / "csqa" / "test_rand_split_no_answers.jsonl")


def test_load_arc_numeric_labels(data: Path) -> None:
    path = data / "arc" / "ARC-Challenge" / "ARC-Challenge-Test.jsonl"
    items = load_mcq(path)
    assert len(items) == 1172
    assert all(i.labels == list("ABCDE")[: len(i.labels)] for i in items)
    raw = {r["id"]: r for r in map(json.loads, path.read_text().splitlines())}
    numeric = [i for i in items if raw[i.id]["question"]["choices"][0]["label"] == "1"]
    assert len(numeric) == 22
    for item in numeric:
        key = int(raw[item.id]["answerKey"])
        assert item.answer == "ABCDE"[key - 1]
        assert item.choices == [c["text"] for c in raw[item.id]["question"]["choices"]]


def test_load_mmlu_csv(data: Path) -> None:
    items = load_mcq(data / "mmlu" / "test" / "anatomy_test.csv")
    assert len(items) == 135
    assert {i.subject for i in items} == {"anatomy"}
    assert items[0].id == "anatomy_test:0"
    assert all(len(i.choices) == 4 and i.answer in "ABCD" for i in items)


def test_load_mmlu_folder(data: Path) -> None:
    items = load_mcq(data / "mmlu" / "test")
    assert len(items) == 14_042
    counts = json.loads((data / "mmlu" / "counts.json").read_text())["test"]["per_subject"]
    assert Counter(i.subject for i in items) == Counter(counts)


def test_load_mmlu_jsonl_matches_csv(data: Path) -> None:
    items = load_mcq(data / "mmlu" / "mmlu_dev.jsonl.gz")
    assert len(items) == 285
    assert items == load_mcq(data / "mmlu" / "dev")


# ---------------------------------------------------------------- MCQ loaders (bad files)

GOOD_CSQA = {"id": "q1", "question": {"stem": "Pick B.", "choices": [
    {"label": "A", "text": "first"}, {"label": "B", "text": "second"},
    {"label": "C", "text": "third"}]}, "answerKey": "B"}


def write_jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(r if isinstance(r, str) else json.dumps(r) + "\n" for r in rows))
    return path


def bad_row(**changes: object) -> dict[str, object]:
    row = json.loads(json.dumps(GOOD_CSQA))
    row.update(changes)
    return row


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ("{not json\n", "invalid JSON"),
        (bad_row(answerKey="D"), "answerKey 'D' is not one of"),
        (bad_row(answerKey=None), "has no answer key"),
        (bad_row(question={"choices": GOOD_CSQA["question"]["choices"]}), "question.stem"),
        (bad_row(question={"stem": "x", "choices": [{"label": "A"}]}), "question.choices"),
        (bad_row(question={"stem": "x", "choices": [
            {"label": "A", "text": "a"}, {"label": "2", "text": "b"}]}), "labels must be"),
        (bad_row(id=None), "missing id"),
        ([1, 2], "expected a JSON object"),
    ],
)
def test_malformed_jsonl_names_file_and_line(tmp_path: Path, row: object, problem: str) -> None:
    path = write_jsonl(tmp_path / "bad.jsonl", [GOOD_CSQA, "\n", row])
    with pytest.raises(UserError) as err:
        load_mcq(path)
    message = str(err.value)
    assert f"{path}:3: " in message and problem in message and "\n" not in message


def test_malformed_mmlu_jsonl(tmp_path: Path) -> None:
    good = {"subject": "s", "split": "test", "idx": 0, "question": "q?",
            "choices": ["a", "b", "c", "d"], "answer": "A"}
    path = tmp_path / "m.jsonl.gz"
    bad = dict(good, idx=1, answer="E")
    path.write_bytes(gzip.compress(f"{json.dumps(good)}\n{json.dumps(bad)}\n".encode()))
    with pytest.raises(UserError, match=r"m\.jsonl\.gz:2: answer 'E' is not one of A, B, C, D"):
        load_mcq(path)


@pytest.mark.parametrize(
    ("rows", "where", "problem"),
    [
        ('q1,a,b,c,d,A\nq2,a,b,c,d\n', 2, "expected 6 fields"),
        ('q1,a,b,c,d,A\nq2,a,b,c,d,E\n', 2, "answer 'E' is not one of A, B, C, D"),
        ('"multi\nline\nquestion",a,b,c,d,B\n,a,b,c,d,A\n', 4, "empty question"),
    ],
)
def test_malformed_csv_names_file_and_line(tmp_path: Path, rows: str, where: int,
                                           problem: str) -> None:
    path = tmp_path / "topic_test.csv"
    path.write_text(rows)
    with pytest.raises(UserError) as err:
        load_mcq(path)
    assert f"{path}:{where}: {problem}" in str(err.value)


def test_csv_multiline_question(tmp_path: Path) -> None:
    path = tmp_path / "topic_test.csv"
    path.write_text('"two\nlines",a,b,c,d,b\nq2,a,b,c,d,D\n')
    items = load_mcq(tmp_path)  # a folder of csv files
    assert [(i.id, i.stem, i.answer, i.subject) for i in items] == [
        ("topic_test:0", "two\nlines", "B", "topic"), ("topic_test:1", "q2", "D", "topic")]


@pytest.mark.parametrize(
    ("name", "content", "problem"),
    [
        ("empty.jsonl", "", "empty file"),
        ("blank.jsonl", "\n\n", "empty file"),
        ("empty.csv", "", "empty file"),
        ("notes.txt", "hello world\n", "unknown format"),
        ("other.jsonl", '{"prompt": "x"}\n', "unknown format"),
        ("array.json", "[1, 2]\n", "unknown format"),
    ],
)
def test_empty_or_unknown_files(tmp_path: Path, name: str, content: str, problem: str) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(UserError, match=problem):
        load_mcq(path)


def test_missing_paths(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such file"):
        load_mcq(tmp_path / "nope.jsonl")
    with pytest.raises(UserError, match=r"no \*\.csv files"):
        load_mcq(tmp_path)


def test_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(UserError, match="not a UTF-8 text file"):
        load_mcq(path)


# ---------------------------------------------------------------- MCQ scope


@pytest.fixture
def mcq_file(tmp_path: Path) -> Path:
    rows = [dict(GOOD_CSQA, id=f"q{i}", answerKey="ABC"[i % 3]) for i in range(3)]
    return write_jsonl(tmp_path / "three.jsonl", rows)


def test_mcq_scoring(mcq_file: Path) -> None:
    scope = MCQScope(mcq_file, idk_score=0.25, wrong_score=0.1)
    assert scope.name == f"mcq:{mcq_file}"
    assert isinstance(scope, Scope) and not isinstance(scope, ExplainableScope)
    q = scope.sample(np.random.default_rng(0))
    right = q.answer
    wrong = next(lab for lab in "ABC" if lab != right)
    assert scope.grade(q, f"The answer is ({right.lower()})").outcome == "correct"
    assert scope.score(q, right) == 1.0
    assert (scope.score(q, wrong), scope.grade(q, wrong).outcome) == (0.1, "wrong")
    assert (scope.score(q, "I don't know"), scope.grade(q, "IDK").outcome) == (0.25, "idk")
    unparsed = scope.grade(q, "banana")
    assert (unparsed.score, unparsed.outcome) == (0.1, "unparsed") and unparsed.reason
    text = q.data["choices"]["ABC".index(right)]
    assert scope.grade(q, text.upper()).outcome == "correct"  # the choice's text, exactly
    assert scope.grade(q, f"I'm not sure. ({right})").outcome == "correct"  # names a choice
    default = MCQScope(mcq_file)
    assert default.grade(q, wrong).ridiculous and default.grade(q, "banana").ridiculous


def test_mcq_choice_text_that_looks_like_idk(tmp_path: Path) -> None:
    row = bad_row(question={"stem": "Who wrote it?", "choices": [
        {"label": "A", "text": "Homer"}, {"label": "B", "text": "Unknown"}]}, answerKey="B")
    scope = MCQScope(write_jsonl(tmp_path / "u.jsonl", [row]))
    q = scope.sample(np.random.default_rng(0))
    assert scope.grade(q, "Unknown").outcome == "correct"
    assert scope.grade(q, "I don't know").outcome == "idk"


def test_mcq_questions_and_phrasings(mcq_file: Path) -> None:
    scope = MCQScope(mcq_file)
    assert scope.phrasings >= 2
    qs = [scope.sample(np.random.default_rng([5, i])) for i in range(600)]
    ids = Counter(q.id for q in qs)
    assert set(ids) == {"q0", "q1", "q2"} and all(150 < n < 250 for n in ids.values())
    q = qs[0]
    assert q.answer == {"q0": "A", "q1": "B", "q2": "C"}[q.id]
    assert q.data == {"labels": ["A", "B", "C"], "choices": ["first", "second", "third"]}
    versions = [scope.rephrase(q, k) for k in range(scope.phrasings)]
    assert len({v.prompt for v in versions}) == scope.phrasings
    for v in versions:
        assert (v.id, v.answer, v.data) == (q.id, q.answer, q.data)
        assert "Pick B." in v.prompt and "second" in v.prompt
        assert v.prompt.splitlines()[-1].endswith('or say "I don\'t know".')
        assert scope.grade(v, "B") == scope.grade(q, "B")


def test_mcq_sampling_reproducible(data: Path) -> None:
    scope = get_scope(f"mcq:{data / 'csqa' / 'dev_rand_split.jsonl'}")
    a = [scope.sample(np.random.default_rng(1)) for _ in range(3)]
    assert a[0] == a[1] == a[2]
    rng = np.random.default_rng(2)
    draws_ = [scope.sample(rng).id for _ in range(2000)]
    assert len(set(draws_)) < 2000  # with replacement: 2000 draws from 1221 items repeat


# ---------------------------------------------------------------- registry


def test_get_scope_builtin() -> None:
    assert set(BUILTIN_SCOPES) == {"arithmetic", "arithmetic/small"}
    assert "mcq:<path>" in scope_listing()
    scope = get_scope("arithmetic")
    assert scope.name == "arithmetic" and isinstance(scope, ArithmeticScope)
    assert scope.idk_score == 0.2
    assert get_scope("arithmetic", idk_score=0.5).idk_score == 0.5
    small = get_scope("arithmetic/small")
    assert isinstance(small, ArithmeticScope) and small.integers and small.idk_score == 0.0


def test_get_scope_mcq(mcq_file: Path) -> None:
    scope = get_scope(f"mcq:{mcq_file}", idk_score=0.3, wrong_score=0.2)
    assert isinstance(scope, MCQScope) and (scope.idk_score, scope.wrong_score) == (0.3, 0.2)


@pytest.mark.parametrize(
    ("spec", "kwargs", "message"),
    [
        ("x", {}, "unknown scope 'x': choose one of arithmetic, arithmetic/small, mcq:<path>"),
        ("arith", {}, "unknown scope 'arith'"),
        ("mcq", {}, "unknown scope 'mcq'"),
        ("mcq:", {}, "needs a path"),
        ("mcq:/no/such/file.jsonl", {}, "no such file"),
        ("arithmetic", {"wrong_score": 0.1}, "has no choices"),
        ("arithmetic", {"idk_score": 1.5}, "idk_score must be between 0 and 1"),
        ("arithmetic", {"idk_score": -0.1}, "idk_score must be between 0 and 1"),
        ("arithmetic", {"idk_score": float("nan")}, "idk_score must be between 0 and 1"),
        ("mcq:x", {"wrong_score": 2.0}, "wrong_score must be between 0 and 1"),
    ],
)
def test_get_scope_errors(spec: str, kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(UserError) as err:
        get_scope(spec, **kwargs)
    assert message in str(err.value)


def test_arithmetic_scope_unknown_preset() -> None:
    with pytest.raises(UserError, match="unknown arithmetic scope"):
        arithmetic_scope("arithmetic/huge")


def asked(a: int, b: int, op: str, answer: float) -> Question:
    """An arithmetic/small question with these operands."""
    return Question(id="q", prompt="", answer=answer, family=op, data={"a": a, "b": b, "op": op})


@pytest.mark.parametrize(("question", "reply"), [
    (asked(16, 4, "/", 4), "16 divided by 4 is a mathematical expression that can be solved."),
    (asked(45, 40, "-", 5), "Compute 45 minus 40"),
    (asked(45, 40, "-", 5), "To subtract 40 from 45, line up the digits."),
    (asked(16, 4, "/", 4), "16 ÷ 4"),
    (asked(12, 3, "*", 36), "What is 12 × 3?"),
])
def test_a_reply_that_only_restates_the_question_is_unparsed(question: Question,
                                                             reply: str) -> None:
    """An operand is never read as the answer: restating the question is no answer (not
    correct, not partial, so it cannot move the ridiculous-answer statistic either way)."""
    graded = arithmetic_scope("arithmetic/small").grade(question, reply)
    assert (graded.outcome, graded.score) == ("unparsed", 0.0)


@pytest.mark.parametrize(("reply", "parsed"), [
    ("16 divided by 4 is 4.", 4.0),
    ("16 ÷ 4 = 4", 4.0),
    ("The answer is 16.", 16.0),  # a stated answer stays an answer, even an operand
    ("4", 4.0),
])
def test_the_answer_after_a_restatement_is_read(reply: str, parsed: float) -> None:
    """What follows the restated question, or an explicit answer, is still graded."""
    assert arithmetic_scope("arithmetic/small").grade(asked(16, 4, "/", 4), reply).parsed \
        == parsed


@pytest.mark.parametrize("reply", [
    "Let me work it out: 37 × 48 is close to 37 × 50 = 1850, then minus 37 × 2 = 74.\n\n1776",
    "37 × 48 is about 1800, and 48 = 50 − 2.\n37 × 48 = 37 × 50 − 74 = 1776",
    "Roughly 1800; exactly, 1850 - 74.\n**Final answer:** 1776",
    "A first estimate: 1850.\n```\n1776\n```",
    "<think>37 × 50 = 1850, minus 74</think>\n$$37 \\times 48 = \\boxed{1776}$$",
])
def test_a_reply_that_reasons_first_is_read_at_its_final_number(reply: str) -> None:
    """Operands and intermediate numbers come first; the final number is the answer."""
    graded = arithmetic_scope("arithmetic/small").grade(asked(37, 48, "*", 1776), reply)
    assert (graded.outcome, graded.parsed) == ("correct", 1776.0)
