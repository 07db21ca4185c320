"""Verdicts for CI (issue 32): `--fail-on` makes `certify` and `audit` exit 3 when a verdict of
the run is in the list, after failed calls (still 1); `--junit FILE` writes one testcase per
verdict. Models are stub endpoints on 127.0.0.1: the oracle answers every arithmetic question
of the run right, a model missing from its answer book says "I don't know." (scored 0)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from verstehen.methods.certification.scopes import get_scope
from verstehen.methods.certification.scopes.draw import question_at
from verstehen.testing.oracle import AnswerBook, oracle_route
from verstehen.testing.stub_endpoints import Route, StubEndpoints

from conftest import Cli, cli_error

SCOPE = "arithmetic/small"
# Criterion PG 0.8, RID 0.2, δ 0.05 (the defaults). For n perfect answers L(1, n, δ) = δ^(1/n)
# and U(0, n, δ) = 1 - δ^(1/n): at n = 16, L = 0.05^(1/16) = 0.8293 >= PG and U = 0.1707 <= RID,
# so the oracle is certified; for n zeros U(0, 16, δ/2) = 1 - 0.025^(1/16) = 0.2063 < PG, so a
# model that always says "I don't know." does not understand. At n = 4 the oracle gets
# L = 0.05^(1/4) = 0.4729 < PG and its score upper bound 1 >= PG: inconclusive.
EXIT_VERDICT = 3  # the documented code: not 1 (failed calls), 2 (usage) or 130 (Ctrl-C)
CERTIFY = ["certify", "--scope", SCOPE, "--rephrase", "0", "--no-progress", "--json"]


def oracle_book(count: int) -> AnswerBook:
    """The first `count` questions a run of arithmetic/small with seed 0 asks."""
    book, scope = AnswerBook(), get_scope(SCOPE)
    for i in range(count):
        book.add(scope, question_at(scope, 0, i))
    return book


def by_model(count: int) -> Route:
    """The model "right" answers the book's questions right; any other model knows none."""
    right, blank = oracle_route(oracle_book(count)), oracle_route(AnswerBook())

    async def route(i: int, method: str, path: str, payload: dict) -> tuple[int, dict] | None:
        answer = right if payload.get("model") == "right" else blank
        return await answer(i, method, path, payload)

    return route


async def failing(i: int, method: str, path: str, payload: dict) -> tuple[int, dict] | None:
    """Every chat completion fails with HTTP 500."""
    if not path.endswith("/chat/completions"):
        return None
    return 500, {"error": {"message": "the stub fails every call"}}


def certify(cli: Cli, route: Route, model: str, *extra: str, questions: int = 16):
    """`verstehen certify` of arithmetic/small against one stub endpoint."""
    with StubEndpoints(1, route=route) as stub:
        return cli([*CERTIFY, "--model", f"openai/{model}", "--base-url", stub.urls[0],
                    "--questions", str(questions), *extra])


def decision(done) -> str:
    """The one scope's decision in certify's JSON."""
    (scope,) = json.loads(done.stdout)["scopes"]
    return scope["verdict"]["decision"]


def junit(path: Path) -> tuple[ET.Element, list[ET.Element]]:
    """The report's one testsuite and its testcases (parsed with the standard library)."""
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    return suite, suite.findall("testcase")


@pytest.mark.parametrize(("model", "fail_on", "code", "verdict"), [
    ("right", None, 0, "understands"),
    ("right", "does_not_understand", 0, "understands"),
    ("blank", None, 0, "does_not_understand"),
    ("blank", "does_not_understand", EXIT_VERDICT, "does_not_understand"),
    ("blank", "does-not-understand", EXIT_VERDICT, "does_not_understand"),  # as before
    ("blank", "inconclusive", 0, "does_not_understand"),
    ("right", "understands", EXIT_VERDICT, "understands"),  # a model that must not pass
])
def test_certify_exits_3_exactly_when_the_verdict_is_in_fail_on(
        cli: Cli, model: str, fail_on: str | None, code: int, verdict: str) -> None:
    extra = [] if fail_on is None else ["--fail-on", fail_on]
    done = certify(cli, by_model(16), model, *extra)
    assert done.returncode == code, done.stderr
    assert decision(done) == verdict
    gate = [line for line in done.stderr.splitlines() if "in --fail-on" in line]
    if code == EXIT_VERDICT:
        assert gate == [f"verstehen: 1 verdict in --fail-on: openai/{model} on {SCOPE} "
                        f"({verdict.replace('_', ' ')}); exit 3"]
    else:
        assert gate == []
    # the spelling of before is read, with one line giving the data's
    warned = [line for line in done.stderr.splitlines() if "is now spelled" in line]
    assert len(warned) == ("-" in (fail_on or "")), done.stderr


def test_fail_on_inconclusive_on_a_budget_too_small_to_decide(cli: Cli, tmp_path: Path) -> None:
    """Four right answers decide nothing (see the header): inconclusive is in the list, exit 3;
    the JUnit failure carries the verdict with its mean and bounds, worked by hand."""
    report = tmp_path / "out.xml"
    done = certify(cli, by_model(4), "right", "--fail-on", "does_not_understand,inconclusive",
                   "--junit", str(report), questions=4)
    assert done.returncode == EXIT_VERDICT, done.stderr
    assert decision(done) == "inconclusive"
    suite, (case,) = junit(report)
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("1", "1", "0")
    assert (case.get("classname"), case.get("name")) == ("openai/right", SCOPE)
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "inconclusive"
    message = failure.get("message") or ""
    assert message.startswith("inconclusive (mean score 1.000 [0.473, 1.000]")
    assert "n=4; PG 0.8, RID 0.2, δ 0.05" in message
    assert "INCONCLUSIVE" in (failure.text or "")
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties["fail-on"] == "does_not_understand,inconclusive"
    assert properties["pg"] == "0.8" and Path(properties["run"] or "").is_dir()


def test_junit_of_a_failing_and_a_passing_certify(cli: Cli, tmp_path: Path) -> None:
    """The failing model's testcase fails, with U(0, 16, 0.025) = 0.206 in its message; the
    passing one's has no failure and says its verdict, L = 0.829, in system-out."""
    failed, passed = tmp_path / "failed.xml", tmp_path / "passed.xml"
    certify(cli, by_model(16), "blank", "--fail-on", "does_not_understand",
            "--junit", str(failed))
    certify(cli, by_model(16), "right", "--fail-on", "does_not_understand",
            "--junit", str(passed))
    suite, (case,) = junit(failed)
    assert suite.get("failures") == "1"
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "does_not_understand"
    assert (failure.get("message") or "").startswith(
        "does not understand (mean score 0.000 [0.000, 0.206]")
    suite, (case,) = junit(passed)
    assert suite.get("failures") == "0" and case.find("failure") is None
    assert (case.findtext("system-out") or "").startswith(
        "understands (mean score 1.000 [0.829, 1.000]")


def test_junit_without_fail_on_fails_no_testcase(cli: Cli, tmp_path: Path) -> None:
    """The report's failures are the exit code's: none without --fail-on (exit 0)."""
    report = tmp_path / "out.xml"
    done = certify(cli, by_model(16), "blank", "--junit", str(report))
    assert done.returncode == 0, done.stderr
    suite, (case,) = junit(report)
    assert suite.get("failures") == "0" and case.find("failure") is None
    assert (case.findtext("system-out") or "").startswith("does not understand")


def test_failed_calls_still_exit_1_and_are_an_error_in_junit(cli: Cli, tmp_path: Path) -> None:
    report = tmp_path / "out.xml"
    done = certify(cli, failing, "right", "--max-attempts", "1", "--fail-on",
                   "does_not_understand,inconclusive", "--junit", str(report), questions=4)
    assert done.returncode == 1, done.stderr
    assert "in --fail-on" not in done.stderr
    suite, (case,) = junit(report)
    assert (suite.get("failures"), suite.get("errors")) == ("0", "1")
    error = case.find("error")
    assert error is not None and "4 calls failed" in (error.get("message") or "")


def test_certify_scores_takes_fail_on_and_junit_and_escapes_names(cli: Cli,
                                                                 tmp_path: Path) -> None:
    """Sixteen zeros from a file (no model): does not understand, exit 3. The file's name,
    with XML's special characters and a control character, comes back intact, the control
    character written out as \\x01 (XML 1.0 cannot hold it)."""
    scores = tmp_path / "a&b <c> \"d\"\x01.txt"
    scores.write_text("0\n" * 16)
    report = tmp_path / "out.xml"
    done = cli(["certify", "--scores", str(scores), "--fail-on", "does_not_understand",
                "--junit", str(report)])
    assert done.returncode == EXIT_VERDICT, done.stderr
    _, (case,) = junit(report)
    assert case.get("name") == str(scores).replace("\x01", "\\x01")
    assert case.find("failure") is not None


def test_audit_fail_on_with_a_passing_and_a_failing_model(cli: Cli, tmp_path: Path) -> None:
    """Two models on arithmetic/small: one testcase per (model, target), the blank model's
    fails, exit 3; the right model alone passes, exit 0. With the doubling test (asked for, so
    that the bounds are worked out by hand), the audit's looks are at 8, 16, 32, ...
    each at δ_j = 6δ/(π² j²): the perfect model is certified at look 3, L(1, 32, 0.00338) =
    0.00338^(1/32) = 0.837 >= PG (look 2 gives 0.0076^(1/16) = 0.737); the blank one refuted
    at look 1, U(0, 8, 0.0304/2) = 1 - 0.0152^(1/8) = 0.407 < PG."""
    report = tmp_path / "audit.xml"
    with StubEndpoints(1, route=by_model(64)) as stub:
        audit = ["audit", "--base-url", stub.urls[0], "--subject", SCOPE, "--no-progress",
                 "--json", "--fail-on", "does_not_understand", "--sequential-test", "doubling"]
        both = cli([*audit, "--model", "openai/right", "--model", "openai/blank",
                    "--junit", str(report)])
        alone = cli([*audit, "--model", "openai/right"])
    assert both.returncode == EXIT_VERDICT, both.stderr
    assert alone.returncode == 0, alone.stderr
    suite, cases = junit(report)
    assert suite.get("name") == "verstehen audit"
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        ("openai/right", SCOPE), ("openai/blank", SCOPE)]
    assert [c.find("failure") is not None for c in cases] == [False, True]
    assert suite.get("failures") == "1"
    assert "[0.837, 1.000]" in (cases[0].findtext("system-out") or "")
    assert "n=32;" in (cases[0].findtext("system-out") or "")
    failure = cases[1].find("failure")
    message = "" if failure is None else failure.get("message") or ""
    assert "[0.000, 0.407]" in message and "n=8;" in message
    assert "openai/blank on arithmetic/small (does not understand); exit 3" in both.stderr


@pytest.mark.parametrize(("value", "needle"), [
    ("maybe", "'maybe' is not a verdict"),
    ("", "give one or more of"),
    ("does_not_understand,", "'' is not a verdict"),
    ("does-not-understand,maybe", "'maybe' is not a verdict"),  # refused: no warning line
])
def test_a_bad_fail_on_is_one_line_exit_2(cli: Cli, value: str, needle: str) -> None:
    for command in (["certify", "--scope", SCOPE], ["audit"]):
        cli_error(cli, [*command, "--model", "openai/m", "--base-url",
                        "http://127.0.0.1:9/v1", f"--fail-on={value}"], "--fail-on", needle)


def test_a_junit_path_in_no_folder_is_refused_before_the_run(cli: Cli, tmp_path: Path) -> None:
    cli_error(cli, [*CERTIFY, "--model", "openai/m", "--base-url", "http://127.0.0.1:9/v1",
                    "--junit", str(tmp_path / "no" / "out.xml")], "--junit", "no such folder")
    cli_error(cli, [*CERTIFY, "--model", "openai/m", "--base-url", "http://127.0.0.1:9/v1",
                    "--junit", str(tmp_path)], "--junit", "a folder")
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("command", ["certify", "audit"])
def test_help_documents_the_exit_codes(cli: Cli, command: str) -> None:
    done = cli([command, "--help"])
    text = " ".join(done.stdout.split())
    assert "exit with code 3" in text and "Failed calls still exit 1 first" in text
    assert "--junit FILE" in text


def test_a_resume_types_junit_again_and_may_add_fail_on(cli: Cli, tmp_path: Path) -> None:
    """A run folder never chooses where a file is written: a resume of a run made with
    --junit is refused unless the same --junit is typed again; --fail-on may be added, and the
    typed one decides the exit code."""
    written = tmp_path / "first.xml"
    with StubEndpoints(1, route=by_model(16)) as stub:
        made = cli([*CERTIFY, "--model", "openai/blank", "--base-url", stub.urls[0],
                    "--questions", "16", "--junit", str(written)])
        assert made.returncode == 0, made.stderr
        run = Path(json.loads(made.stdout)["run"])
        written.unlink()
        refused = cli(["certify", "--resume", str(run), "--base-url", stub.urls[0]])
        assert refused.returncode == 2 and "--junit" in refused.stderr
        assert not written.exists()
        again = cli(["certify", "--resume", str(run), "--base-url", stub.urls[0],
                     "--junit", str(written), "--fail-on", "does_not_understand"])
    assert again.returncode == 3, again.stderr
    assert written.exists()
