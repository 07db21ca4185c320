"""`verstehen audit` on the embedded model, from the command line (in process): whatever the
135M model writes, the table and the report follow the records, and a rerun is free."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import Cli

# a budget of 256 tokens a reply: what is checked holds whatever the model writes, and the
# test's time should not hang on whether one of its rambles runs to 2,048 tokens
ARGS = ["audit", "--subject", "game-theory/zero-sum", "--no-progress", "--max-tokens", "256"]


@pytest.mark.slow
def test_audit_on_the_embedded_model_prints_the_table_and_the_report(cli: Cli) -> None:
    done = cli(ARGS)
    assert done.returncode == 0, done.stderr
    assert "Zero-Sum Game" in done.stdout and "score [L, U]" in done.stdout
    report = Path(done.stdout.strip().splitlines()[-1].removeprefix("report: "))
    assert report.name == "report.html" and "Zero-Sum Game" in report.read_text()
    summary = json.loads((report.parent / "summary.json").read_text())
    (line,) = summary["targets"]
    certify = Path(summary["runs"][0]["certify"])
    answers = [json.loads(x) for x in (certify / "records.jsonl").read_text().splitlines()
               if json.loads(x)["kind"] == "answer"]
    assert line["asked"] == len(answers) == line["verdict"]["n"]
    assert line["verdict"]["decision"] in done.stdout.replace(" ", "_")
    mean = sum(r["score"] for r in answers) / len(answers)
    assert line["verdict"]["mean_score"] == pytest.approx(mean)
    assert line["keystone"] is None  # no judge: the definition waits for people
    assert "1 definition waits for a grade" in done.stdout  # one concept, no judge

    again = cli([*ARGS, "--json"])
    assert again.returncode == 0, again.stderr
    rerun = json.loads(again.stdout)
    usage = rerun["usage"]["local/smollm2-135m"]
    assert usage["calls"] == usage["cache_hits"] > 0
    assert rerun["targets"][0]["verdict"] == line["verdict"]
