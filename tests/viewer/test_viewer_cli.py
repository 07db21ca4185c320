"""`verstehen report` and `verstehen runs` in process, on runs a scripted model made."""

from __future__ import annotations

import json
from pathlib import Path

import verstehen as vs
from verstehen.testing.scripted import ScriptedModel

from conftest import Cli, cli_error


def test_report_of_two_runs_puts_the_models_side_by_side(cli: Cli, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    first = vs.certify(ScriptedModel("scripted/yes", reply=lambda p: "ANSWER: Yes"),
                       "game-theory/zero-sum/classify", questions=20, rephrase=0, rid=0.2,
                       runs_dir=runs, cache=tmp_path / "c.sqlite")
    second = vs.certify(ScriptedModel("scripted/no", reply=lambda p: "ANSWER: No"),
                        "game-theory/zero-sum/classify", questions=20, rephrase=0, rid=0.2,
                        runs_dir=runs, cache=tmp_path / "c.sqlite")
    out = tmp_path / "both.html"
    done = cli(["report", str(first.run_dir), str(second.run_dir), "-o", str(out)])
    assert done.returncode == 0 and done.stdout.strip() == str(out)
    page = out.read_text()
    assert "Certification side by side" in page
    side = page[page.index("Certification side by side"):]
    side = side[:side.index("</table>")]
    assert "scripted/yes" in side and "scripted/no" in side
    for result in (first, second):
        v = result.verdict
        assert f"{v.mean_score:.2f} [{v.score_lower:.2f}, {v.score_upper:.2f}] n=20" in side

    listed = cli(["runs", "--runs-dir", str(runs), "--json"])
    rows = json.loads(listed.stdout)["runs"]
    assert [r["id"] for r in rows] == sorted([first.run_dir.name, second.run_dir.name])
    for row, result in zip(rows, sorted((first, second), key=lambda r: r.run_dir.name),
                           strict=True):
        assert row["command"] == "certify" and row["models"] == [result.model]
        assert row["status"] == "done"
        assert row["found"] == f"1 {result.verdict.decision.words}"
    table = cli(["runs", "--runs-dir", str(runs)]).stdout
    assert "certify" in table and "scripted/no" in table


def test_an_interrupted_run_is_listed_as_interrupted_and_not_drawn(cli: Cli, tmp_path) -> None:
    runs = tmp_path / "runs"
    result = vs.certify(ScriptedModel(), "arithmetic/small", questions=6, pg=0.6, rid=0.4,
                        rephrase=0,
                        runs_dir=runs, cache=tmp_path / "c.sqlite")
    # as a run killed before its end leaves it: no summary, "running", no process holding it
    (result.run_dir / "summary.json").unlink()
    info = json.loads((result.run_dir / "run.json").read_text())
    (result.run_dir / "run.json").write_text(json.dumps({**info, "status": "running"}))
    rows = json.loads(cli(["runs", "--runs-dir", str(runs), "--json"]).stdout)["runs"]
    assert rows[0]["status"] == "interrupted"
    assert f"resume='{result.run_dir}'" in rows[0]["found"]  # it was made from Python
    cli_error(cli, ["report", str(result.run_dir)], "no summary.json", "rerun")


def test_bad_input_is_one_line_and_exit_2(cli: Cli, tmp_path: Path) -> None:
    cli_error(cli, ["report", str(tmp_path)], "not a run folder")
    cli_error(cli, ["runs", "--runs-dir", str(tmp_path / "none")], "no runs folder")
    (tmp_path / "batch").mkdir()
    (tmp_path / "batch" / "run.json").write_text(json.dumps({"command": "batch"}))
    cli_error(cli, ["report", str(tmp_path / "batch")], "'batch' run", "does not draw")


def test_runs_names_models_alike_and_keeps_a_failure_short(cli: Cli, tmp_path: Path,
                                                            monkeypatch) -> None:
    """A served model is listed as it is typed (openai/stub-model, as a local one is
    local/...), a failed run's reason is cut to one short line, and a missing runs folder is
    named in full with where runs are made (issue 30)."""
    runs = tmp_path / "runs"
    reason = "RuntimeError: " + "the server said no " * 20  # 300 characters, as seen
    for run_id, status, why in (("20261126-000001-batch-aaaaaa", "done", None),
                                ("20261126-000002-batch-bbbbbb", "failed", reason)):
        (runs / run_id).mkdir(parents=True)
        (runs / run_id / "run.json").write_text(json.dumps({
            "run_id": run_id, "command": "batch", "config": {}, "argv": ["batch"],
            "models": [{"provider": "openai", "model": "stub-model"}], "status": status,
            "status_reason": why}))
    rows = json.loads(cli(["runs", "--runs-dir", str(runs), "--json"]).stdout)["runs"]
    assert [r["models"] for r in rows] == [["openai/stub-model"], ["openai/stub-model"]]
    failed = rows[1]["found"]
    said = failed.split("; once that is fixed")[0]
    assert len(said) <= 100 and said.endswith("…") and said.startswith("RuntimeError: the")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.delenv("VERSTEHEN_RUNS_DIR", raising=False)
    cli_error(cli, ["runs"], f"no runs folder at {elsewhere / 'runs'}", "--runs-dir")
