"""`verstehen consistency` end to end on the embedded model: 20 CSQA dev questions with the
shared ConceptNet edges, from the command line (in process). The checks are on the procedure's
consistency with the data and its own records (negatives are not edges, anchors graded against
the file, CC recomputed by a brute-force average precision), not on the model's quality; a
rerun from the command line and one from Python are served from the cache."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

from verstehen.cli.main import main
from verstehen.methods.consistency.api import consistency

from conftest import SHARED_DATA, needs_shared

CSQA = SHARED_DATA / "csqa" / "dev_rand_split.jsonl"
KB = SHARED_DATA / "conceptnet" / "csqa_dev_edges_14rel.tsv"
ARGS = ["consistency", "--questions", str(CSQA), "--kb", str(KB), "--limit", "20",
        "--resamples", "200", "--no-progress", "--json"]

pytestmark = [pytest.mark.slow, needs_shared("csqa/dev_rand_split.jsonl",
                                             "conceptnet/csqa_dev_edges_14rel.tsv")]


def in_process(folders: dict[str, Path]) -> tuple[dict, str]:
    """`verstehen consistency ARGS` in this process, into the given runs folder and cache: the
    JSON it printed and its stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*ARGS, "--runs-dir", str(folders["runs_dir"]),
                     "--cache", str(folders["cache"])])
    assert code == 0, err.getvalue()
    return json.loads(out.getvalue()), err.getvalue()


@pytest.fixture(scope="module")
def consistency_run(tmp_path_factory: pytest.TempPathFactory
                    ) -> tuple[dict, dict[str, Path]]:
    """One run over the first 20 dev questions, and its runs folder and cache."""
    tmp = tmp_path_factory.mktemp("consistency")
    folders = {"runs_dir": tmp / "runs", "cache": tmp / "calls.sqlite"}
    summary, _ = in_process(folders)
    return summary, folders


def records(summary: dict) -> list[dict]:
    """The run's records."""
    return [json.loads(x) for x in Path(summary["run"], "records.jsonl").read_text().splitlines()]


def brute_ap(y: list[bool], s: list[Fraction]) -> float:
    """Average precision by its definition: at each distinct score, from the highest, the gain
    in recall times the precision of predicting "correct" for every score at or above it."""
    total, ap, previous_recall = sum(y), 0.0, 0.0
    for t in sorted(set(s), reverse=True):
        chosen = [yi for yi, si in zip(y, s, strict=True) if si >= t]
        recall = sum(chosen) / total
        ap += (recall - previous_recall) * sum(chosen) / len(chosen)
        previous_recall = recall
    return ap


def test_negatives_are_never_edges_and_anchors_are_graded_by_the_file(consistency_run) -> None:
    summary, _ = consistency_run
    rows = records(summary)
    with KB.open() as f:
        edges = {(r["relation"], r["start"], r["end"]) for r in csv.DictReader(f, delimiter="\t")}
    facts = [r for r in rows if r["kind"] == "fact"]
    positives = {(f["relation"], f["c1"]) for f in facts if f["positive"]}
    for f in facts:
        assert ((f["relation"], f["c1"], f["c2"]) in edges) == f["positive"]
        assert len(f["combos"]) == 35 and isinstance(f["said_yes"], bool)
        if not f["positive"]:
            assert (f["relation"], f["c1"]) in positives and f["c2"] != f["c1"]
    keys = {json.loads(line)["id"]: json.loads(line)["answerKey"]
            for line in CSQA.read_text().splitlines()[:20]}
    anchors = [r for r in rows if r["kind"] == "anchor"]
    assert sorted(a["id"] for a in anchors) == sorted(keys)
    for a in anchors:
        assert a["correct"] == (a["chosen"] == keys[a["id"]])
        assert set(a["facts"]) <= {f["key"] for f in facts}


def test_scores_follow_from_the_records(consistency_run) -> None:
    summary, _ = consistency_run
    rows = records(summary)
    right = {r["key"]: (r["relation"], r["positive"], r["said_yes"] == r["positive"])
             for r in rows if r["kind"] == "fact"}

    def eq1(mine: list[tuple[str, bool, bool]]) -> Fraction | None:
        """Eq. 1 in exact fractions: equal scores must tie in the average precision."""
        sides = [Fraction(sum(ok for _, p, ok in mine if p == side),
                          sum(p == side for _, p, _ in mine))
                 for side in (True, False) if any(p == side for _, p, _ in mine)]
        return sum(sides, Fraction(0)) / len(sides) if sides else None

    y, s = [], []
    per_relation: dict[str, list[Fraction]] = {}
    for a in (r for r in rows if r["kind"] == "anchor"):
        mine = [right[k] for k in dict.fromkeys(a["facts"])]
        score = eq1(mine)
        if score is not None and a["correct"] is not None:
            y.append(a["correct"])
            s.append(score)
        for relation in {r for r, _, _ in mine}:
            per_relation.setdefault(relation, []).append(
                eq1([m for m in mine if m[0] == relation]))
    cc = summary["consistency"]
    assert cc["n"] == len(y) >= 15
    assert cc["s_a"] == pytest.approx(sum(y) / len(y))
    assert cc["s_b"] == pytest.approx(float(sum(s) / len(s)))
    if any(y):
        assert cc["cc"] == pytest.approx(brute_ap(y, s))
        assert cc["cc_low"] <= cc["cc"] <= cc["cc_high"]
    # paper Figure 4a: eq. 1 per relation averaged over anchors, then over the relations
    means = [float(sum(v) / len(v)) for v in per_relation.values()]
    assert cc["relations"] == len(means)
    assert cc["s_b_relations"] == pytest.approx(sum(means) / len(means))
    assert cc["s_b_relations_low"] <= cc["s_b_relations"] <= cc["s_b_relations_high"]
    for png in ("relations_png", "bias_png"):
        assert Path(summary[png]).read_bytes()[:4] == b"\x89PNG"


def test_rerun_is_served_from_the_cache(consistency_run) -> None:
    summary, folders = consistency_run
    again, stderr = in_process(folders)
    usage = again["usage"]["local/smollm2-135m"]
    assert usage["calls"] == usage["cache_hits"] > 0
    facts = sum(r["kind"] == "fact" for r in records(summary))
    assert re.search(rf"\b{facts} distinct background facts to ask", stderr), stderr
    # a fact shared by anchors is asked once: 23 prompts a fact, one call an anchor question
    assert usage["calls"] == 23 * facts + 20
    assert again["consistency"] == summary["consistency"]


def test_the_same_run_from_python_is_the_command_lines(consistency_run) -> None:
    summary, folders = consistency_run
    result = consistency("local/smollm2-135m", questions=CSQA, kb=KB, limit=20, resamples=200,
                         **folders)
    usage = result.usage["local/smollm2-135m"]
    assert usage.calls == usage.cache_hits > 0  # the same prompts, the same model identity
    again = result.to_dict()
    for key in ("consistency", "by_relation", "by_concept", "bias", "facts", "anchors"):
        assert again[key] == summary[key], key
    assert sorted(records({"run": result.run_dir}), key=json.dumps) == sorted(
        records(summary), key=json.dumps)

    def info(run: Path | str) -> dict:
        found = json.loads(Path(run, "run.json").read_text())
        return {k: found[k] for k in ("command", "config", "seed", "models")}

    assert info(result.run_dir) == info(summary["run"])
