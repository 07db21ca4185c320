"""`verstehen export --inspect`: a run folder of each method, and an audit, as Inspect logs that
`inspect_ai.log.read_eval_log` reads back with one sample per question asked and the scores
the records hold; `inspect view` serves them; without the extra, one line says what to install.
"""

from __future__ import annotations

import subprocess
import sys
import urllib.request
from collections import Counter
from pathlib import Path

import pytest
from every_method import each_kind
from made_runs import QUESTIONS, REPHRASED, made_runs, records, summary

from verstehen.cli.flags import Parser, engine_flags
from verstehen.errors import UserError
from verstehen.export.cli import add_parsers
from verstehen.export.frames import records_frame
from verstehen.testing.ports import free_port, wait_for_port

read_eval_log = pytest.importorskip("inspect_ai.log").read_eval_log

# the samples each run should have, worked out from how each kind's example makes its run:
# certify asks QUESTIONS and rephrases REPHRASED of them; potemkin run asks one item of each of
# its four tasks; incoherence asks 2 instances and 2 non-instances; generate 2 questions on
# each of 2 topics; answer those 4 of 2 models; consistency 3 anchors and, of the four KB edges
# and one negative fact for each, the 8 facts they name (counted from the anchors below)
SAMPLES = {"certify": QUESTIONS + REPHRASED, "potemkin-run": 4, "potemkin-incoherence": 4,
           "imagine-generate": 4, "imagine-answer": 8, "consistency": 3 + 8}
# the logs each run gives: certify one for its verdict and one for its rephrasings; the rest one
LOGS = {"certify": 2}


def export(*argv: str) -> list[Path]:
    """Run `verstehen export ARGV` through the command's own parser; the paths it wrote."""
    parser = Parser(prog="verstehen")
    add_parsers(parser.add_subparsers(dest="command", parser_class=Parser), engine_flags())
    args = parser.parse_args(["export", *argv])
    lines: list[str] = []
    original = sys.stdout.write
    sys.stdout.write = lambda text: lines.append(text) or len(text)  # type: ignore[method-assign]
    try:
        assert args.func(args) == 0
    finally:
        sys.stdout.write = original  # type: ignore[method-assign]
    return [Path(p) for p in "".join(lines).split()]


def record_scores(kind: str, run: Path) -> list[float | None] | None:
    """Each question's score as its record says it, read here from records.jsonl (None for a
    kind whose records this does not read)."""
    lines = records(run)
    if kind == "certify":
        return [r["score"] for r in lines if r["kind"] in ("answer", "rephrase")]
    if kind == "potemkin-run":
        verdicts = {r["id"]: r["verdict"] for r in lines if r["kind"] == "judge"}
        return [(None if r["correct"] is None else float(r["correct"])) if r["task"] != "define"
                else float(verdicts[r["id"]]) for r in lines if r["kind"] == "answer"]
    if kind == "potemkin-incoherence":
        return [None if r["mismatch"] is None else float(not r["mismatch"]) for r in lines]
    if kind == "imagine-answer":  # correctness where it answered; refusing is not graded
        return [{"correct": 1.0, "wrong": 0.0}.get(r["outcome"]) for r in lines]
    if kind == "consistency":
        return [float(r["correct"]) if r["kind"] == "anchor" else
                float(r["said_yes"] == r["positive"]) for r in lines]
    if kind == "imagine-generate":  # questions made, not graded
        return [None for _ in lines]
    return None


def log_scores(log) -> list[float | None]:  # an EvalLog
    return [s.scores["verstehen"].value if s.scores else None for s in log.samples]


def by_value(scores: list[float | None]) -> Counter:
    return Counter("none" if s is None else s for s in scores)


@each_kind(lambda kind: kind.rows is not None and kind.inner_runs is None)
def test_each_kinds_run_reads_back_with_its_samples_and_scores(kind, tmp_path,
                                                                tmp_path_factory):
    """One sample per row of its records table (as many as SAMPLES says where it says), with
    the scores its records hold (where `record_scores` knows how they say them); a kind
    keeping run folders inside its own (an audit) is exported as theirs, tested below."""
    name = kind.kind
    run = made_runs(tmp_path_factory)[name]
    paths = export(str(run), "--inspect", "--out", str(tmp_path))
    assert len(paths) == LOGS.get(name, 1)
    assert all(path.parent == tmp_path and path.suffix == ".eval" for path in paths)
    logs = [read_eval_log(str(path)) for path in paths]
    assert paths[0].name == f"{run.name}.eval" and logs[0].eval.task == f"verstehen/{name}"
    samples = [s for log in logs for s in log.samples]  # every question asked, in one log
    for log in logs:
        assert log.status == "success" and log.eval.task.startswith(f"verstehen/{name}")
        assert len(log.samples) == log.results.total_samples
    assert len(samples) == len(records_frame(run)) == len({s.id for s in samples}) > 0
    assert len(samples) == SAMPLES.get(name, len(samples))
    if (scores := record_scores(name, run)) is not None:
        assert by_value([s for log in logs for s in log_scores(log)]) == by_value(scores)
    if name == "consistency":  # the facts the anchors name, counted from the records
        named = {f for r in records(run) if r["kind"] == "anchor" for f in r["facts"]}
        assert len(named) == 8
    assert all(s.output.completion or s.output.error for s in samples)


def test_the_logs_results_are_the_summarys_verdicts_bounds_and_rates(tmp_path,
                                                                      tmp_path_factory):
    runs = made_runs(tmp_path_factory)
    path = export(str(runs["certify"]), "--inspect", "--out", str(tmp_path))[0]
    (scope,) = read_eval_log(str(path)).results.scores  # the verdict's log
    verdict = summary(runs["certify"])["scopes"][0]["verdict"]
    assert scope.name == "arithmetic/small" and scope.metadata["decision"] == "understands"
    for name in ("mean_score", "score_lower", "score_upper", "ridiculous_upper", "n"):
        assert scope.metrics[name].value == verdict[name]
    (path,) = export(str(runs["potemkin-incoherence"]), "--inspect", "--out", str(tmp_path))
    overall = read_eval_log(str(path)).results.scores[0]
    want = summary(runs["potemkin-incoherence"])["overall"]
    assert overall.name == "overall"
    assert overall.metrics["incoherence"].value == want["incoherence"]
    assert overall.metrics["n"].value == want["n"]


def test_an_audit_is_one_log_per_lens_folder_and_verdict(tmp_path, tmp_path_factory):
    audit = made_runs(tmp_path_factory)["audit"]
    paths = export(str(audit), "--inspect", "--out", str(tmp_path))
    lenses = sorted(p for p in (audit / "scripted-oracle").iterdir())
    targets = summary(audit)["targets"]
    # the certify lens: a log per target's verdict; the potemkin lenses: a log each
    assert len(lenses) == 3 and len(paths) == len(targets) + 2
    kept = {"certify": ("answer", "rephrase"), "potemkin-run": ("answer",),
            "potemkin-incoherence": ("pair",)}
    for path in paths:
        log = read_eval_log(str(path))
        lens = Path(log.eval.metadata["verstehen_run"])
        assert lens in lenses and path.name.startswith(f"{audit.name}_scripted-oracle_{lens.name}")
        command = log.eval.metadata["command"]
        mine = [r for r in records(lens) if r["kind"] in kept[command]
                and (command != "certify" or r["scope"] == log.eval.dataset.name)]
        assert log.eval.metadata["outer_run"] == str(audit)
        assert len(log.samples) == len(mine) and log.eval.model == "scripted/oracle"
        if command == "certify":  # the verdicts rest on these scores
            assert by_value(log_scores(log)) == by_value([r["score"] for r in mine])
        lines = log.results.metadata["audit"]
        assert {line["scope"] for line in lines} == {t["key"] for t in
                                                      summary(audit)["targets"]}


def test_inspect_view_serves_the_log(tmp_path, tmp_path_factory):
    run = made_runs(tmp_path_factory)["certify"]
    paths = export(str(run), "--inspect", "--out", str(tmp_path / "logs"))
    port = free_port()
    inspect = Path(sys.executable).parent / "inspect"
    proc = subprocess.Popen([str(inspect), "view", "--log-dir", str(tmp_path / "logs"),
                             "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, proc)
        base = f"http://127.0.0.1:{port}"
        with urllib.request.urlopen(base + "/", timeout=30) as page:
            assert page.status == 200 and b"<html" in page.read().lower()
        with urllib.request.urlopen(base + "/api/logs", timeout=30) as listing:
            text = listing.read().decode()
        assert all(path.name in text for path in paths) and "verstehen/certify" in text
    finally:
        proc.terminate()
        proc.wait(10)


def test_without_the_extra_one_line_says_what_to_install(tmp_path, tmp_path_factory,
                                                         monkeypatch):
    run = made_runs(tmp_path_factory)["certify"]
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)  # import fails as if absent
    with pytest.raises(UserError) as raised:
        export(str(run), "--inspect", "--out", str(tmp_path))
    assert "pip install 'verstehen[inspect]'" in str(raised.value)
    assert "\n" not in str(raised.value) and not list(tmp_path.iterdir())


def test_nothing_to_write_is_a_user_error(tmp_path_factory):
    run = made_runs(tmp_path_factory)["certify"]
    with pytest.raises(UserError, match="--inspect"):
        export(str(run))


def test_importing_verstehen_and_other_commands_import_no_extra():
    code = ("import sys, verstehen, verstehen.cli.main as m; m.build_parser(); "
            "import verstehen.export.cli, verstehen.export.kinds, verstehen.auditing.rows; "
            "print(sorted(x for x in ('pandas', 'pyarrow', 'inspect_ai') if x in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.strip() == "[]"
