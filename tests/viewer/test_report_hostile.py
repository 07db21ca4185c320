"""Run folders edited to attack the report and the commands that read them (issue 43's
findings): markup in an audit's config is refused before a page is built, and drawn anyway it
is text (headless Chromium runs none of it); fields that crashed `verstehen report` are one
line naming the folder and the field; a 1 MB model name is cut; bidi overrides and other
format characters are shown as escapes in the page and on the terminal."""

from __future__ import annotations

import base64
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from export.made_runs import made_runs
from viewer.test_report_browser import browser  # noqa: F401  (a fixture)

from verstehen.auditing import html as audit_html
from verstehen.report.html import Page

from conftest import Cli, cli_error
from pages import book_in

# an image whose error handler says it ran three ways: a flag, the title and the console
PWN = "<img src=x onerror=\"window.__pwned=1;document.title='pwned';console.log('pwned')\">"
BIDI = "evil\u202etxt.exe"  # a right-to-left override: shows as "evilexe.txt"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return made_runs(tmp_path_factory)


def copy(run: Path, tmp_path: Path) -> Path:
    """A copy of a made run folder to edit."""
    return Path(shutil.copytree(run, tmp_path / run.name, symlinks=True))


def edit_json(path: Path, change: Callable[[Any], object]) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def ran_no_script(tab: Any, title: str, console: list[str]) -> None:
    """The page's title is its own, no flag was set and nothing said `pwned`."""
    assert tab.evaluate("window.__pwned") is None
    assert tab.title() == title
    assert "pwned" not in " ".join(console)


def test_markup_in_an_audits_config_is_refused_by_report_and_schema_check(
        cli: Cli, runs: dict[str, Path], tmp_path: Path) -> None:
    run = copy(runs["audit"], tmp_path)
    before = (run / "report.html").read_bytes()
    edit_json(run / "run.json", lambda info: info["config"].update(max_questions=PWN))
    said = f"{run}/run.json: $.config.max_questions: expected integer, got string"
    cli_error(cli, ["report", str(run)], said)
    assert (run / "report.html").read_bytes() == before  # no page was written
    checked = cli(["schema", "--check", str(run)])
    assert checked.returncode == 2
    assert checked.stdout.splitlines() == [said]


def test_the_audit_note_shows_markup_as_text_in_chromium(browser, runs: dict[str, Path],  # noqa: F811
                                                         tmp_path: Path) -> None:
    """Drawn without the schema's check, the note's values are still text: the page's own
    script works, and none of the folder's runs."""
    run = copy(runs["audit"], tmp_path)
    edit_json(run / "run.json", lambda info: info["config"].update(max_questions=PWN,
                                                                   first_look=PWN))
    page = Page("an audit")
    audit_html.section(run, page)
    out = tmp_path / "page.html"
    out.write_text(page.html())
    tab = browser.new_page()
    console: list[str] = []
    tab.on("console", lambda message: console.append(message.text))
    tab.goto(out.as_uri())
    ran_no_script(tab, "an audit", console)
    note = tab.locator("p.note").last.inner_text()
    assert f"up to {PWN} questions per target (first look {PWN})" in note
    tab.locator("a.rec").first.click()  # the page's own script still opens records
    tab.locator("dialog#records[open] .record").first.wait_for()
    tab.close()


@pytest.mark.parametrize(("change", "said"), [
    (lambda c: c.update(pg="0.8"), "$.config.pg: expected number, got string"),
    (lambda c: c.update(rid="0.2"), "$.config.rid: expected number, got string"),
    (lambda c: c.update(delta="0.05"), "$.config.delta: expected number, got string"),
    (lambda c: c["targets"][0].pop("key"), "$.config.targets[0].key: required key missing"),
    (lambda c: c.update(pg=1e30), "$.config: the passing grade PG must lie in (0, 1)"),
], ids=["pg", "rid", "delta", "target-key", "pg-huge"])
def test_a_config_field_that_crashed_the_report_is_one_line(
        cli: Cli, runs: dict[str, Path], tmp_path: Path,
        change: Callable[[dict[str, Any]], object], said: str) -> None:
    run = copy(runs["audit"], tmp_path)
    edit_json(run / "run.json", lambda info: change(info["config"]))
    cli_error(cli, ["report", str(run)], f"{run}/run.json: {said}")


def test_odd_usage_keys_are_left_out(cli: Cli, runs: dict[str, Path], tmp_path: Path) -> None:
    run = copy(runs["audit"], tmp_path)

    def odd(summary: dict[str, Any]) -> None:
        summary["usage"]["scripted/oracle"]["</textarea><b>odd"] = 1
        summary["usage"]["<script>x</script>"] = {"x": 1}

    edit_json(run / "summary.json", odd)
    assert cli(["schema", "--check", str(run)]).returncode == 0  # extra keys are allowed
    done = cli(["report", str(run), "-o", str(tmp_path / "out.html")])
    assert done.returncode == 0, done.stderr
    assert "Audit: game-theory" in (tmp_path / "out.html").read_text()


def test_a_1_mb_model_name_is_cut(cli: Cli, runs: dict[str, Path], tmp_path: Path) -> None:
    """In a certify folder the page is drawn, its heading cut to 200 characters; in an audit's
    config, where no lens folder can have the name, one line with the name cut."""
    huge = "m" * 1_000_000
    run = copy(runs["certify"], tmp_path)
    edit_json(run / "summary.json", lambda summary: summary.update(model=huge))
    edit_json(run / "run.json", lambda info: info["models"][0].update(model=huge))
    done = cli(["report", str(run), "-o", str(tmp_path / "out.html")])
    assert done.returncode == 0, done.stderr[:300]
    text = (tmp_path / "out.html").read_text()
    assert f"<h2>Certification: {'m' * (200 - 16)}…</h2>" in text
    listed = cli(["runs", "--runs-dir", str(tmp_path)])
    assert listed.returncode == 0 and len(listed.stdout) < 2_000
    assert "scripted/" + "m" * 191 + "… (999,809 more characters)" in listed.stdout

    audit = copy(runs["audit"], tmp_path / "a")
    edit_json(audit / "run.json", lambda info: info["config"].update(models=[huge]))
    line = cli_error(cli, ["report", str(audit)], "holds no certification run")
    assert len(line) < 1_000 and "more characters)" in line


def test_bidi_and_format_characters_are_escaped_in_the_report(
        cli: Cli, runs: dict[str, Path], tmp_path: Path) -> None:
    run = copy(runs["certify"], tmp_path)
    edit_json(run / "summary.json", lambda summary: summary.update(model=BIDI))
    lines = (run / "records.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["text"] = "1 \u2066hidden\u2069 \U0001f469\u200d\U0001f52c\u200b"  # isolate, ZWJ, ZWSP
    (run / "records.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    done = cli(["report", str(run), "-o", str(tmp_path / "out.html")])
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "out.html").read_text()
    assert "Certification: evil\\u202etxt.exe" in text
    book = book_in(text)
    answers = [r["answer"] for r in book["records"] if "hidden" in r["answer"]]
    # a reply keeps its zero-width joiner (the emoji), not its isolates nor the zero-width space
    assert answers == ["1 \\u2066hidden\\u2069 \U0001f469\u200d\U0001f52c\\u200b"]
    for char in ("\u202e", "\u2066", "\u2069", "\u200b"):
        assert char not in text and all(char not in json.dumps(r, ensure_ascii=False)
                                        for r in book["records"])


def test_bidi_in_an_svg_label_and_a_terminal_line(cli: Cli, runs: dict[str, Path],
                                                  tmp_path: Path) -> None:
    run = copy(runs["audit"], tmp_path)
    edit_json(run / "run.json", lambda info: info["config"]["targets"][0].update(name=BIDI))
    done = cli(["report", str(run), "-o", str(tmp_path / "out.html")])
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "out.html").read_text()
    assert 'data-target="game-theory/strict-dominance">evil\\u202etxt.exe</text>' in text
    assert "\u202e" not in text
    certify = copy(runs["certify"], tmp_path / "c")
    edit_json(certify / "run.json", lambda info: info["models"][0].update(model=BIDI))
    listed = cli(["runs", "--runs-dir", str(tmp_path / "c")])
    assert listed.returncode == 0
    assert "evil\\u202etxt.exe" in listed.stdout and "\u202e" not in listed.stdout


def test_a_figure_is_read_from_the_folder_only(cli: Cli, runs: dict[str, Path],
                                               tmp_path: Path) -> None:
    """summary.json names a figure: a path elsewhere, or a link in the folder, does not put
    another file into the page (only a PNG of the folder's own is inlined)."""
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"\x89PNG\r\n\x1a\n" + b"SECRET" * 20)
    leaked = base64.b64encode(secret.read_bytes()).decode()[:40]
    run = copy(runs["potemkin-run"], tmp_path / "elsewhere")
    edit_json(run / "summary.json", lambda summary: summary.update(plot=str(secret)))
    assert cli(["report", str(run), "-o", str(tmp_path / "a.html")]).returncode == 0
    assert leaked not in (tmp_path / "a.html").read_text()
    linked = copy(runs["consistency"], tmp_path / "linked")
    (linked / "bias.png").unlink()
    (linked / "bias.png").symlink_to(secret)
    assert cli(["report", str(linked), "-o", str(tmp_path / "b.html")]).returncode == 0
    page = (tmp_path / "b.html").read_text()
    assert leaked not in page and page.count("data:image/png;base64,") == 1  # relations.png


def test_runs_lists_a_folder_that_does_not_fit_as_unreadable(cli: Cli, runs: dict[str, Path],
                                                            tmp_path: Path) -> None:
    """`verstehen runs` goes on past a folder whose run.json does not fit (it crashed on a
    number for an answer run's models), saying where it does not."""
    run = copy(runs["imagine-answer"], tmp_path)
    edit_json(run / "run.json", lambda info: info["config"].update(models=7))
    listed = cli(["runs", "--runs-dir", str(tmp_path), "--json"])
    assert listed.returncode == 0, listed.stderr
    [line] = json.loads(listed.stdout)["runs"]
    assert (line["command"], line["status"]) == ("imagine-answer", "unreadable")
    assert line["found"].startswith("run.json: $.config.models: expected array, got integer")


def test_schema_check_escapes_the_values_it_names(cli: Cli, runs: dict[str, Path],
                                                  tmp_path: Path) -> None:
    run = copy(runs["certify"], tmp_path)
    edit_json(run / "run.json", lambda info: info.update(status=BIDI))
    checked = cli(["schema", "--check", str(run)])
    assert checked.returncode == 2
    assert checked.stdout.splitlines() == [
        f'{run}/run.json: $.status: expected one of "running", "interrupted", "done", "failed", '
        'got "evil\\u202etxt.exe"']
