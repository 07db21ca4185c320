"""Run folders fuzzed: every field of every run.json and summary.json of every run kind (an
audit's lens folders too) has its type swapped, is replaced by markup or by a huge value, is
removed, or gets an odd key beside it, and each such folder goes through `verstehen report`,
`export --format csv`, `runs` and `schema --check`. Each command ends with exit 0, or exit 2
and one line naming the folder (`schema --check`: a line per problem), never a traceback; and
every page a command wrote from markup is loaded in headless Chromium, which runs none of the
folder's markup while the page's own script still opens its records.
"""

from __future__ import annotations

import gc
import itertools
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from export.made_runs import made_runs
from viewer.test_report_browser import browser  # noqa: F401  (a fixture)

from conftest import Cli

pytestmark = pytest.mark.slow  # about 3 minutes on 2 busy cores

# each sets the flag a page must never see set, and says so on the console
PAYLOADS = ("<script>window.__pwned=1;console.log('pwned')</script>",
            "<img src=x onerror=\"window.__pwned=1;console.log('pwned')\">",
            "</textarea><svg onload=\"window.__pwned=1;console.log('pwned')\">",
            "\"><img src=x onerror=window.__pwned=1>",
            "</script><script>window.__pwned=1</script>",
            "</title><script>document.title='pwned'</script>")
HUGE = 1_000_000
Where = tuple[str | int, ...]


def nodes(value: Any, where: Where = ()) -> Iterator[tuple[Where, Any]]:
    """Every value of a JSON document with where it is (of a list, its first item)."""
    yield where, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from nodes(item, (*where, key))
    elif isinstance(value, list) and value:
        yield from nodes(value[0], (*where, 0))


def swapped(value: Any) -> Any:
    """A value of another JSON type."""
    if isinstance(value, bool):
        return "yes"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return 7
    return [1] if isinstance(value, dict) else {"a": 1} if isinstance(value, list) else "x"


def huge(value: Any) -> Any:
    """A huge value of the same type where there is one (1 MB of text, 10^30)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return 10 ** 30 if isinstance(value, int) else 1e308
    return "h" * HUGE


def mutations(where: Where, value: Any, turn: int, *, lens: bool) -> Iterator[tuple[str, Any]]:
    """What is done to one field: its type swapped, and in turn markup, a huge value or the
    key removed (markup for every text); an odd key beside an object's keys. A field of an
    audit's lens folder (a kind fuzzed whole on its own too) gets one of these, in turn."""
    if lens:
        chosen = [("type", "markup", "huge", "missing")[turn % 4]]
    else:
        chosen = ["type", ("markup", "huge", "missing")[turn % 3]]
        chosen += ["markup"] if isinstance(value, str) and "markup" not in chosen else []
        chosen += ["odd"] if isinstance(value, dict) else []
    for how in chosen:
        if how == "type":
            yield how, swapped(value)
        elif how == "markup":
            yield how, PAYLOADS[turn % len(PAYLOADS)]
        elif how == "huge":
            yield how, huge(value)
        elif how == "odd":
            yield how, {"x": [1]}
        elif where:  # "missing": a key or an item removed
            yield how, None


def mutated(document: Any, where: Where, how: str, value: Any, turn: int) -> Any:
    """A copy of the document with the field at `where` changed."""
    copy = json.loads(json.dumps(document))
    if not where:
        return value if how != "odd" else {**copy, PAYLOADS[turn % len(PAYLOADS)]: value}
    parent = copy
    for key in where[:-1]:
        parent = parent[key]
    if how == "missing":
        del parent[where[-1]]
    elif how == "odd":
        parent[where[-1]][PAYLOADS[turn % len(PAYLOADS)]] = value
    else:
        parent[where[-1]] = value
    return copy


def one_line(done: Any, run: Path) -> str | None:
    """What is wrong with a command's end: None for exit 0, or exit 2 with one line naming
    the folder."""
    if "Traceback" in done.stderr or done.returncode not in (0, 2):
        return f"exit {done.returncode}: {done.stderr[-300:]}"
    lines = done.stderr.strip().splitlines()
    if done.returncode == 2 and (len(lines) != 1 or str(run) not in lines[0]):
        return f"not one line naming the folder: {done.stderr[:300]}"
    return None


def test_every_field_of_every_kind(cli: Cli, browser, tmp_path: Path,  # noqa: F811
                                   tmp_path_factory: pytest.TempPathFactory) -> None:
    def run_cli(args: list[str]) -> Any:
        done = cli(args)
        gc.unfreeze()  # main() freezes what it made (gc.freeze): thousands of calls here
        return done

    made = made_runs(tmp_path_factory)
    failures: list[str] = []
    pages: list[Path] = []
    counts = {"folders": 0, "fields": 0, "variants": 0, "drawn": 0, "refused": 0}
    turn = itertools.count()
    for kind, original in made.items():
        runs = tmp_path / kind
        run = Path(shutil.copytree(original, runs / original.name, symlinks=True))
        for file in sorted(p for p in run.rglob("*.json")
                           if p.name in ("run.json", "summary.json")):
            counts["folders"] += file.name == "run.json"
            text = file.read_text()
            for where, value in list(nodes(json.loads(text))):
                counts["fields"] += 1
                step = next(turn)
                lens = file.parent != run
                for how, new in mutations(where, value, step, lens=lens):
                    counts["variants"] += 1
                    file.write_text(json.dumps(mutated(json.loads(text), where, how, new,
                                                       step)))
                    said = f"{kind} {file.relative_to(run)} {where} {how}"
                    page = tmp_path / f"page-{counts['variants']}.html"
                    drawn = run_cli(["report", str(run), "-o", str(page)])
                    counts["drawn" if drawn.returncode == 0 else "refused"] += 1
                    if how in ("markup", "odd") and drawn.returncode == 0:
                        pages.append(page)
                    elif page.exists():
                        page.unlink()
                    for name, done in (
                            ("report", drawn),
                            ("export", run_cli(["export", str(run), "--format", "csv",
                                                "-o", str(tmp_path / "tables")])),
                            ("runs", run_cli(["runs", "--runs-dir", str(runs)]))):
                        if (wrong := one_line(done, run)) is not None:
                            failures.append(f"{name}: {said}: {wrong}")
                    checked = run_cli(["schema", "--check", str(run)])
                    if "Traceback" in checked.stderr or checked.returncode not in (0, 2):
                        failures.append(f"schema --check: {said}: {checked.stderr[-300:]}")
            file.write_text(text)
    print(counts, f"{len(pages)} pages loaded in Chromium")
    assert failures == [], "\n".join(failures[:20])
    assert counts["drawn"] and counts["refused"]

    tab = browser.new_page()
    console: list[str] = []
    tab.on("console", lambda message: console.append(message.text))
    for page in pages:
        tab.goto(page.as_uri())
        title = tab.title()
        assert title.startswith("verstehen report: "), (page, title)
        assert tab.evaluate("window.__pwned") is None, page
        if tab.locator("a.rec").count():  # the page's own script still opens records
            tab.locator("a.rec").first.click()
            tab.locator("dialog#records[open] .record").first.wait_for()
    assert "pwned" not in " ".join(console)
    tab.close()
