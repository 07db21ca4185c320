"""Results from Python show as the CLI prints them (issue 30, item 3): `text()` and `str()` are
the command's printout for the same run, IPython's pretty printer shows it, and `_repr_html_`
holds its tables as HTML tables, every cell escaped; the dataclass repr stays. Also: a list of
replicas as `base_url` of the API."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from imagination.test_imagine_cli import answers_run
from potemkin.test_potemkin_cli import records_file

import verstehen as vs
from verstehen.auditing.text import show as show_audit
from verstehen.methods.certification.results import CertifyResult
from verstehen.methods.imagination.results import ImagineGenerateResult, QuestionCounts
from verstehen.results import load_result
from verstehen.testing.scripted import ScriptedModel
from verstehen.testing.stub_endpoints import StubEndpoints

from conftest import Cli


class Printer:
    """The part of IPython's pretty printer `_repr_pretty_` uses."""

    def __init__(self) -> None:
        self.out = ""

    def text(self, obj: str) -> None:
        self.out += obj


def pretty(result: object) -> str:
    """What IPython shows for `result` (its pretty printer, without IPython)."""
    printer = Printer()
    result._repr_pretty_(printer, False)  # type: ignore[attr-defined]
    return printer.out


def cells(shown: str) -> list[list[str]]:
    """The rows of td cells of an HTML fragment."""
    return [re.findall(r"<td>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", shown)]


def shows_as_printed(result: object, stdout: str) -> None:
    """text(), str() and the pretty printer are the printout; the repr is the dataclass's."""
    assert result.text() == stdout.removesuffix("\n")  # type: ignore[attr-defined]
    assert str(result) == pretty(result) == result.text()  # type: ignore[attr-defined]
    assert repr(result).startswith(type(result).__name__ + "(")


def test_a_certify_run_shows_what_the_cli_printed(cli: Cli, tmp_path: Path) -> None:
    """The stub echoes each question, so no answer of 4 is right: the verdict table's row reads
    "does not understand" with n 4, the mean score (near 0) of the result's verdict."""
    with StubEndpoints(1) as stub:
        done = cli(["certify", "--model", "openai/m", "--base-url", stub.urls[0], "--scope",
                    "arithmetic/small", "--questions", "4", "--rephrase", "0"])
    assert done.returncode == 0, done.stderr
    run_dir = Path(re.search(r"records: (.*)/records\.jsonl", done.stdout).group(1))
    result = load_result(CertifyResult, run_dir)
    shows_as_printed(result, done.stdout)
    shown = result._repr_html_()
    assert shown.count("<table>") == 1
    (row,) = [r for r in cells(shown) if r]
    assert row[:3] == ["arithmetic/small", "does not understand", "4"]
    verdict = result.verdict
    assert verdict.mean_score < 0.1
    assert row[3] == (f"{verdict.mean_score:.3f} [{verdict.score_lower:.3f}, "
                      f"{verdict.score_upper:.3f}]")


def test_matrix_and_analysis_show_what_the_cli_printed(cli: Cli, tmp_path: Path) -> None:
    """a1 answered 4 of 5 questions, 3 rightly: κ = 3/4, α = 4/5 (as test_imagine_cli)."""
    run = answers_run(tmp_path)
    done = cli(["imagine", "matrix", str(run), "--out", str(tmp_path / "m")])
    assert done.returncode == 0, done.stderr
    matrix = vs.imagine_matrix(run, out=tmp_path / "m")
    shows_as_printed(matrix, done.stdout)
    kappa, alpha = (dict((r[0], r[1]) for r in cells(t.html()) if r) for t in matrix.tables())
    assert kappa["a1"].startswith("0.75 (") and kappa["a1"].endswith("n=4")
    assert alpha["a1"].startswith("0.80 (") and alpha["a1"].endswith("n=5")
    assert matrix._repr_html_().count("<table>") == 2

    done = cli(["imagine", "analyze", str(run), "--out", str(tmp_path / "a")])
    assert done.returncode == 0, done.stderr
    analysis = vs.imagine_analyze(run, out=tmp_path / "a")
    shows_as_printed(analysis, done.stdout)
    assert analysis._repr_html_().count("<table>") == len(analysis.tables()) > 0


def test_potemkin_scores_show_what_the_cli_printed(cli: Cli, tmp_path: Path) -> None:
    """classify: 2 x (1 - 3/4) = 0.50 and generate 1 - 1/2 = 0.50 (as test_potemkin_cli)."""
    path = records_file(tmp_path)
    done = cli(["potemkin", "score", str(path)])
    assert done.returncode == 0, done.stderr
    scores = vs.potemkin_score(path)
    assert isinstance(scores, vs.PotemkinScores)
    assert scores.text() == done.stdout.removesuffix("\n") == str(scores)
    table1 = {r[0]: r[1:] for r in cells(scores.tables()[0].html()) if r}
    assert table1["m"][0].startswith("0.50 (") and table1["m"][1].startswith("0.50 (")


def test_an_audit_shows_what_its_command_prints(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A model that answers "Yes" to every arithmetic question gets none right, so each target
    is "does not understand" after the first look of 8 questions (the audit's default); the text
    says so per target under the default criterion, and the HTML table has the same rows."""
    result = vs.audit(ScriptedModel("scripted/yes", reply=lambda p: "ANSWER: Yes"),
                      subjects="arithmetic/small", examples=0, runs_dir=tmp_path / "runs",
                      cache=tmp_path / "c.sqlite")
    capsys.readouterr()
    show_audit(result)
    shows_as_printed(result, capsys.readouterr().out)
    text = result.text()
    assert text.startswith("audit of arithmetic/small: PG 0.8, RID 0.2, δ 0.05")
    rows = [line for line in text.splitlines() if "does not understand" in line]
    assert len(rows) == len(result.targets) > 0
    assert all(" 8 " in row for row in rows)
    html_rows = [r for r in cells(result._repr_html_()) if r]
    assert sum("does not understand" in cell for r in html_rows for cell in r) == len(rows)


def test_html_escapes_what_a_model_wrote(tmp_path: Path) -> None:
    """A question model named with a script tag shows it as text, in the title and cells."""
    name = "<script>alert(1)</script>"
    counts = QuestionCounts(asked=3, kept=1, slots=2, filled=1, dropped=2,
                            reasons={"<b>no choices</b>": 2}, failed=0)
    result = ImagineGenerateResult(qm=name, by_type={"DQ": counts}, kept=1, failed_calls=0,
                            run_dir=tmp_path, seconds=1.0, usage={})
    shown = result._repr_html_()
    assert "<script>" not in shown and "<b>" not in shown
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in shown
    assert cells(shown)[1] == ["DQ", "1 of 2", "3", "1", "0", "2", "0",
                               "&lt;b&gt;no choices&lt;/b&gt; (2)"]
    assert result.text().startswith(name)  # the text is plain: nothing to escape


def test_a_list_of_replicas_as_base_url(tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two stub replicas of one served model, given as a list: both are asked."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with StubEndpoints(2) as stub:
        result = vs.potemkin_incoherence("openai/m", concepts="game-theory/zero-sum",
                                         per_concept=4, base_url=stub.urls,
                                         runs_dir=tmp_path / "runs", cache=tmp_path / "c.sqlite")
        asked = [stub.chats(0), stub.chats(1)]
    usage = result.usage["openai/m"]
    assert result.failed_calls == 0 and sum(asked) == usage.calls - usage.cache_hits
    assert min(asked) > 0, asked


def test_potemkin_runs_show_what_their_commands_printed(cli: Cli, tmp_path: Path) -> None:
    """`potemkin run` (definitions only, so no tables yet) and `potemkin incoherence` against a
    stub that echoes: each result's text is its command's printout. The model makes 2 examples
    and 2 non-examples of the concept and classifies each once, so the overall row counts 4
    classifications, read or unparsed."""
    common = ["--model", "openai/m", "--runs-dir", str(tmp_path / "runs"),
              "--cache", str(tmp_path / "c.sqlite")]
    with StubEndpoints(1) as stub:
        common += ["--base-url", stub.urls[0]]
        run = cli(["potemkin", "run", *common, "--concepts", "game-theory/zero-sum",
                   "--tasks", "define"])
        inc = cli(["potemkin", "incoherence", *common, "--concepts", "game-theory/zero-sum",
                   "--per-concept", "2"])
    assert run.returncode == 0 and inc.returncode == 0, run.stderr + inc.stderr
    from verstehen.methods.potemkin.results import PotemkinIncoherenceResult, PotemkinRunResult
    for done, kind in ((run, PotemkinRunResult), (inc, PotemkinIncoherenceResult)):
        run_dir = Path(re.search(r"(\S*)/records\.jsonl", done.stdout).group(1))
        shows_as_printed(load_result(kind, run_dir), done.stdout)
    shown = load_result(PotemkinIncoherenceResult, run_dir)
    overall = cells(shown._repr_html_())[-1]
    assert overall[0] == "Overall" and int(overall[2]) + int(overall[3]) == 4
