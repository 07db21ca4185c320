"""The fast tier (`pytest -m fast`, chosen by the rule in conftest.py): every part of the
package that has tests keeps some of them in it, and nothing slow gets in.

A part is a folder of src/verstehen (`methods/<method>` for each method) or a module at its
root; a test module tests the parts it imports. The checks read the verdict on every test of
the suite from this session where it collected the whole suite (`pytest`, `pytest -m fast`:
conftest keeps them from before `-m` deselects), else from a collection in a subprocess.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from conftest import TESTS_ROOT, FastTier, fast_tier_key

SRC = TESTS_ROOT.parent / "src" / "verstehen"


def part_of(module: str) -> str | None:
    """The part of the package a dotted module name (or a name inside a module) belongs to."""
    names = module.split(".")
    if names[0] != "verstehen" or len(names) < 2:
        return None
    if names[1] == "methods" and len(names) > 2 and (SRC / "methods" / names[2]).is_dir():
        return f"methods/{names[2]}"
    if (SRC / names[1]).is_dir() or (SRC / f"{names[1]}.py").is_file():
        return names[1]
    return None


def parts() -> set[str]:
    """Every folder of the package (each method's its own) and every module at its root."""
    found = {path.stem for path in SRC.glob("*.py") if not path.stem.startswith("__")}
    for folder in SRC.iterdir():
        if (folder / "__init__.py").is_file():
            found.add(folder.name)
    found |= {f"methods/{folder.name}" for folder in (SRC / "methods").iterdir()
              if (folder / "__init__.py").is_file()}
    return found


def parts_imported(path: Path) -> set[str]:
    """The parts a test module imports, at its top or inside its functions."""
    found: set[str | None] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {part_of(alias.name) for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found |= {part_of(f"{node.module}.{alias.name}") for alias in node.names}
    return {part for part in found if part}


def suite_files() -> set[str]:
    """The test modules of the suite, as node ids begin."""
    return {path.relative_to(TESTS_ROOT.parent).as_posix()
            for path in TESTS_ROOT.rglob("test_*.py")}


@pytest.fixture(scope="module")
def tier(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> FastTier:
    """The verdict on every test of the suite."""
    kept = request.config.stash.get(fast_tier_key, FastTier())
    if {nodeid.split("::")[0] for nodeid in kept.out} >= suite_files():
        return kept
    report = tmp_path_factory.mktemp("fast-tier") / "tier.json"
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                           "-p", "no:cacheprovider", str(TESTS_ROOT)],
                          env={**os.environ, "VERSTEHEN_FAST_TIER_REPORT": str(report)},
                          cwd=TESTS_ROOT.parent, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    read = json.loads(report.read_text())
    return FastTier(read["out"], set(read["slow"]))


@pytest.mark.fast  # reads this session's verdicts under `pytest -m fast`: no subprocess then
def test_every_part_of_the_package_with_tests_keeps_some_in_the_fast_tier(
        tier: FastTier) -> None:
    by_file: dict[str, list[str]] = defaultdict(list)
    for nodeid in tier.out:
        by_file[nodeid.split("::")[0]].append(nodeid)
    tested: set[str] = set()
    fast_in: dict[str, int] = defaultdict(int)
    for file, nodeids in by_file.items():
        imported = parts_imported(TESTS_ROOT.parent / file)
        if set(nodeids) - tier.slow:
            tested |= imported
        for part in imported:
            fast_in[part] += sum(tier.out[nodeid] is None for nodeid in nodeids)
    # the imports are read right: every folder of the package has tests that are not slow
    folders = {part for part in parts() if (SRC / part).is_dir()}
    assert folders <= tested, sorted(folders - tested)
    left_out = [part for part in sorted(tested) if not fast_in[part]]
    assert not left_out, (f"no fast test imports {left_out}: mark a quick test of each "
                          "`pytest.mark.fast`, or see why the rule in conftest.py leaves "
                          "their tests out")


@pytest.mark.fast
def test_nothing_slow_is_fast_and_the_tier_stays_a_small_part(tier: FastTier) -> None:
    fast = {nodeid for nodeid, reason in tier.out.items() if reason is None}
    assert fast and tier.slow and not fast & tier.slow, sorted(fast & tier.slow)
    # 716 of 3,936 tests (18 %) ran in 43 s on two cores; the whole suite takes 19 minutes
    assert len(fast) < len(tier.out) / 4, f"{len(fast)} of {len(tier.out)} tests are fast"
