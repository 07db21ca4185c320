"""Certifying exactly-graded concept scopes on the embedded model, end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verstehen.methods.certification.procedure import question_at
from verstehen.methods.certification.scopes import get_scope
from verstehen.parse import parse_yes_no

from conftest import run_cli

SEED = 4  # its first six questions hold all three tasks (checked below)


def records_of(run: str) -> list[dict]:
    """The records of a run folder."""
    return [json.loads(line) for line in Path(run, "records.jsonl").read_text().splitlines()]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["game-theory/strict-dominance", "poetry/haiku"])
def test_certify_concept_scope_grades_every_answer_exactly(cli_env: dict[str, str],
                                                            name: str) -> None:
    """Six questions of one concept: each record's grade is the checker's verdict on its text."""
    # PG 0.6, RID 0.4: six right answers could certify (L(1, 6, 0.05) = 0.607, U = 0.393)
    done = run_cli(["certify", "--scope", name, "--questions", "6", "--seed", str(SEED),
                    "--rephrase", "0", "--json", "--no-progress", "--pg", "0.6", "--rid",
                    "0.4"], cli_env, timeout=600)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    scope_summary = summary["scopes"][0]
    verdict = scope_summary["verdict"]
    assert verdict["n"] == 6 and verdict["decision"] in {
        "understands", "does_not_understand", "inconclusive"}
    records = records_of(summary["run"])
    assert len(records) == 6
    scope = get_scope(name)
    for record in records:
        question = question_at(scope, SEED, record["index"])
        assert record["question_id"] == question.id and record["prompt"] == question.prompt
        assert record["text"] is not None
        again = scope.grade(question, record["text"])
        assert (again.score, again.outcome) == (record["score"], record["outcome"])
        assert record["score"] in (0.0, 1.0)
        if record["family"] == "classify":
            said = parse_yes_no(record["text"])
            assert record["score"] == float(said is not None and said == record["expected"])
    assert {r["family"] for r in records} == {"classify", "generate", "edit"}
    families = scope_summary["by_family"]
    assert sum(f["n"] for f in families.values()) == 6
    mean = sum(r["score"] for r in records) / 6
    assert verdict["mean_score"] == pytest.approx(mean)
    assert sum(scope_summary["outcomes"].values()) == 6
