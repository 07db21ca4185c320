"""`certify --model A --model B --scope X --scope Y` (issue 44, item 1): one run, one verdict per
(model, scope), one table, one JUnit testcase each, `--fail-on` over all of them. Before, the
last --model and the last --scope silently won: a CI job gating two models passed while one
failed.

The models are stub endpoints on 127.0.0.1 (one server, told apart by the model named in the
request): "right" answers every question of the run from the oracle's book, "blank" knows none
and says "I don't know." (arithmetic/small scores it 0, arithmetic 0.2). At PG 0.8, RID 0.2,
δ 0.05 and 16 questions: 16 right answers give L = 0.05^(1/16) = 0.829 >= PG and U(0) = 0.171
<= RID, "understands"; 16 zeros give U(0, 16, δ/2) = 1 - 0.025^(1/16) = 0.206 < PG, and 16
scores of 0.2 a mean's upper bound of 0.530 < PG: "does not understand" both.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import verstehen as vs
from verstehen.methods.certification.results import CertifyResult
from verstehen.methods.certification.scopes import get_scope
from verstehen.methods.certification.scopes.draw import question_at
from verstehen.results import load_result
from verstehen.testing.oracle import AnswerBook, OracleModel, oracle_route
from verstehen.testing.scripted import ScriptedModel
from verstehen.testing.stub_endpoints import Route, StubEndpoints

from conftest import Cli, cli_error

SMALL, FULL = "arithmetic/small", "arithmetic"
RIGHT, BLANK = "openai/right", "openai/blank"
UNDERSTANDS = vs.Decision.UNDERSTANDS.value
DOES_NOT = vs.Decision.DOES_NOT_UNDERSTAND.value
EXIT_VERDICT = 3
# the spelling --fail-on has always read (the JSON's), whatever it shows
FAIL_ON = ["--fail-on", DOES_NOT]


def oracle_book(count: int = 16) -> AnswerBook:
    """The first `count` questions of both scopes (seed 0)."""
    book = AnswerBook()
    for name in (SMALL, FULL):
        scope = get_scope(name)
        for i in range(count):
            book.add(scope, question_at(scope, 0, i))
    return book


def by_model(count: int = 16) -> Route:
    """The model "right" answers the first `count` questions of both scopes (seed 0) right;
    any other model knows none."""
    right, blank = oracle_route(oracle_book(count)), oracle_route(AnswerBook())

    async def route(i: int, method: str, path: str, payload: dict) -> tuple[int, dict] | None:
        answer = right if payload.get("model") == "right" else blank
        return await answer(i, method, path, payload)

    return route


def certify(cli: Cli, url: str, *extra: str):
    """`verstehen certify` of 16 questions, no rephrasings, at the stub."""
    return cli(["certify", "--questions", "16", "--rephrase", "0", "--no-progress",
                "--base-url", url, *extra])


def junit_cases(path: Path) -> list[ET.Element]:
    """The testcases of the report's one testsuite."""
    (suite,) = ET.parse(path).getroot().findall("testsuite")
    return suite.findall("testcase")


def test_a_failing_model_beside_a_passing_one_fails_the_gate(cli: Cli, tmp_path: Path) -> None:
    """The finding: with "blank" failing, the run exits 3, its JSON holds both verdicts and
    the JUnit file one testcase per model, the failing one failed."""
    report = tmp_path / "out.xml"
    with StubEndpoints(1, route=by_model()) as stub:
        done = certify(cli, stub.urls[0], "--model", RIGHT, "--model", BLANK, "--scope", SMALL,
                       "--json", *FAIL_ON, "--junit", str(report))
    assert done.returncode == EXIT_VERDICT, done.stderr
    data = json.loads(done.stdout)
    assert data["models"] == [RIGHT, BLANK] and data["model"] == f"{RIGHT}, {BLANK}"
    assert [(s["model"], s["scope"], s["verdict"]["decision"]) for s in data["scopes"]] == [
        (RIGHT, SMALL, UNDERSTANDS), (BLANK, SMALL, DOES_NOT)]
    cases = junit_cases(report)
    assert [(c.get("classname"), c.get("name")) for c in cases] == [(RIGHT, SMALL),
                                                                    (BLANK, SMALL)]
    assert [c.find("failure") is not None for c in cases] == [False, True]
    gate = [line for line in done.stderr.splitlines() if "in --fail-on" in line]
    assert len(gate) == 1 and f"{BLANK} on {SMALL}" in gate[0] and RIGHT not in gate[0]


def test_two_models_on_two_scopes_make_four_verdicts_in_one_folder(cli: Cli,
                                                                   tmp_path: Path) -> None:
    """One table with a model column, four testcases, one run folder whose records name their
    model, whose run.json lists the models and whose summary reads back typed; `report`,
    `export`, `runs` and `schema --check` read it."""
    report = tmp_path / "out.xml"
    with StubEndpoints(1, route=by_model()) as stub:
        done = certify(cli, stub.urls[0], "--model", RIGHT, "--model", BLANK, "--scope", SMALL,
                       "--scope", FULL, *FAIL_ON, "--junit", str(report))
    assert done.returncode == EXIT_VERDICT, done.stderr
    lines = done.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("model "))
    rows = [line.split("  ")[0:2] for line in lines[header + 2:header + 6]]
    assert [[cell.strip() for cell in row if cell.strip()] for row in rows] == [
        [RIGHT, SMALL], [RIGHT, FULL], [BLANK, SMALL], [BLANK, FULL]]
    assert f"{BLANK} on {FULL}:" in lines
    assert len(junit_cases(report)) == 4
    [run] = (tmp_path / "runs").iterdir()  # the cli fixture's runs folder
    config = json.loads((run / "run.json").read_text())["config"]
    assert config["models"] == [RIGHT, BLANK] and "model" not in config
    records = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]
    assert {(r["model"], r["scope"]) for r in records} == {
        (m, s) for m in (RIGHT, BLANK) for s in (SMALL, FULL)}
    assert len(records) == 64
    result = load_result(CertifyResult, run)
    assert result.model_names == (RIGHT, BLANK)
    verdicts = result.verdicts_by_model
    assert verdicts[RIGHT][FULL] is not None and verdicts[RIGHT][FULL].decision.value == \
        UNDERSTANDS
    assert verdicts[BLANK][FULL] is not None and verdicts[BLANK][FULL].decision.value == DOES_NOT
    with pytest.raises(ValueError, match="2 models on 2 scopes"):
        _ = result.verdict
    with pytest.raises(ValueError, match="verdicts_by_model"):
        _ = result.verdicts
    page = tmp_path / "page.html"
    assert cli(["report", str(run), "-o", str(page)]).returncode == 0
    assert f"{BLANK} on {FULL}" in page.read_text()
    assert cli(["schema", "--check", str(run)]).returncode == 0
    listed = cli(["runs", "--runs-dir", str(run.parent)])
    assert f"{RIGHT}, {BLANK}" in listed.stdout and "2 understands, 2 does not" in listed.stdout


def test_export_of_several_models_keeps_every_row_apart(cli: Cli, tmp_path: Path) -> None:
    """Each row's id is unique in the folder (a run of several models prefixes its model),
    and the results table has one row per (model, scope)."""
    pytest.importorskip("pandas")
    with StubEndpoints(1, route=by_model()) as stub:
        certify(cli, stub.urls[0], "--model", RIGHT, "--model", BLANK, "--scope", SMALL)
    [run] = (tmp_path / "runs").iterdir()
    frame = vs.records_frame(run)
    assert len(frame) == 32 and frame["id"].is_unique
    assert set(frame["model"]) == {RIGHT, BLANK}
    assert len(vs.results_frame(run)) == 2


def test_a_run_of_several_models_resumes_from_its_folder(cli: Cli, tmp_path: Path) -> None:
    """`--resume` parses the run's own command line, both models included, and asks nothing
    again: every call a cache hit, the same verdicts."""
    with StubEndpoints(1, route=by_model()) as stub:
        first = certify(cli, stub.urls[0], "--model", RIGHT, "--model", BLANK, "--scope", SMALL,
                        "--json")
        [run] = (tmp_path / "runs").iterdir()
        again = cli(["certify", "--resume", str(run), "--base-url", stub.urls[0], "--json"])
    assert again.returncode == 0, again.stderr
    before, after = json.loads(first.stdout), json.loads(again.stdout)
    assert [s["verdict"] for s in after["scopes"]] == [s["verdict"] for s in before["scopes"]]
    for model in (RIGHT, BLANK):
        assert after["usage"][model]["calls"] == after["usage"][model]["cache_hits"] == 16


@pytest.mark.parametrize(("flags", "needles"), [
    (["--model", RIGHT, "--model", RIGHT, "--scope", SMALL], ["named twice", RIGHT]),
    (["--model", RIGHT, "--scope", SMALL, "--scope", SMALL], ["give each scope once"]),
    # the old name of a scope is the scope itself
    (["--model", RIGHT, "--scope", "poetry/haiku", "--scope", "literary/haiku"],
     ["give each scope once", "poetry/haiku, poetry/haiku"]),
    # the scope that cannot be explained comes first: before, the last one alone was run
    (["--model", RIGHT, "--model", BLANK, "--scope", "game-theory/pure-nash", "--explanations",
      "--scope", SMALL], ["no question families", "--explanations"]),
])
def test_a_combination_that_cannot_run_is_one_line(cli: Cli, tmp_path: Path, flags: list[str],
                                                   needles: list[str]) -> None:
    """Refused in one line, exit 2, before any folder is made: never one of them dropped."""
    cli_error(cli, ["certify", "--base-url", "http://127.0.0.1:9/v1", "--no-progress",
                    *flags], *needles)
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())


def test_the_api_certifies_several_models_and_one_keeps_its_shape(tmp_path: Path) -> None:
    """`vs.certify([A, B], [X])` gives one verdict per model; `vs.certify(A, X)` is as before:
    `.verdict`, run.json's `model`, and a summary.json with no `models`."""
    right = OracleModel(oracle_book(), name="oracle/right")
    blank = ScriptedModel("scripted/blank", reply=lambda prompt: "I don't know.")
    keywords = {"questions": 16, "rephrase": 0, "runs_dir": tmp_path / "runs",
                "cache": tmp_path / "calls.sqlite", "progress": False}
    both = vs.certify([right, blank], [SMALL], **keywords)
    assert both.model_names == ("oracle/right", "scripted/blank")
    assert [(both.model_of(s), s.scope, s.verdict and s.verdict.decision.value)
            for s in both.scopes] == [("oracle/right", SMALL, UNDERSTANDS),
                                      ("scripted/blank", SMALL, DOES_NOT)]
    one = vs.certify(blank, SMALL, **keywords)
    assert one.verdict is not None and one.verdicts == {SMALL: one.verdict}
    assert one.model == "scripted/blank" and one.model_names == ("scripted/blank",)
    config = json.loads((one.run_dir / "run.json").read_text())["config"]
    assert config["model"] == "scripted/blank" and "models" not in config
    summary = json.loads((one.run_dir / "summary.json").read_text())
    assert "models" not in summary and "model" not in summary["scopes"][0]


def test_scores_from_records_of_several_models_pick_one(cli: Cli, tmp_path: Path) -> None:
    """`certify --scores records.jsonl` of a run of two models refuses to pool them: --model
    picks one; a plain scores file refuses --model; two --scope are one line."""
    with StubEndpoints(1, route=by_model()) as stub:
        certify(cli, stub.urls[0], "--model", RIGHT, "--model", BLANK, "--scope", SMALL)
    [run] = (tmp_path / "runs").iterdir()
    records = str(run / "records.jsonl")
    cli_error(cli, ["certify", "--scores", records], "2 models", RIGHT, BLANK, "--model")
    for model, decision in ((RIGHT, UNDERSTANDS), (BLANK, DOES_NOT)):
        done = cli(["certify", "--scores", records, "--model", model, "--json"])
        assert json.loads(done.stdout)["verdict"]["decision"] == decision
    plain = tmp_path / "plain.txt"
    plain.write_text("1\n" * 16)
    cli_error(cli, ["certify", "--scores", str(plain), "--model", RIGHT], "plain scores")
    cli_error(cli, ["certify", "--scores", records, "--scope", SMALL, "--scope", FULL],
              "give --scope once")
