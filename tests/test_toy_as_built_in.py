"""A new built-in method is its folder and one line: the toy method (tests/toy_method/) copied
into a copy of the package as `verstehen/methods/echo/` (its imports renamed, nothing else
changed) and named in one line of BUILT_IN gets, from those alone, every registry-parametrised
test the suite has (`-m every_method`): its subcommand, flags with ranges, API function, run
folder, resume, `runs` line, report section, schema and export rows; and the layout rules (every
method folder named in BUILT_IN) hold with it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import verstehen

pytestmark = pytest.mark.slow  # the registry-parametrised tests of every kind, again

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
PACKAGE = Path(verstehen.__file__).resolve().parent
LINE = '    "verstehen.methods.echo.method:METHOD",\n'
# the test files whose every_method tests are run on the copy
FILES = ("test_method_contract.py", "test_options_declared.py", "test_package_face.py",
         "test_layout.py", "engine/test_engine_settings.py", "engine/test_resume_api.py",
         "viewer/test_report_every_method.py", "schema/test_generate.py",
         "schema/test_folders.py", "schema/test_schema_cli.py", "export/test_frames.py",
         "export/test_tables_join.py", "export/test_inspect_export.py",
         "export/test_inspect_verdicts.py")
# what echo must get, each a test with a case of its own: (file, test)
ECHO_CASES = (
    ("test_method_contract.py", "test_each_run_kind_is_a_command_that_resumes_as_declared"),
    ("test_method_contract.py", "test_each_method_is_listed_at_its_place"),
    ("test_options_declared.py", "test_api_signature_is_the_declaration"),
    ("test_options_declared.py", "test_cli_flags_are_the_declaration"),
    ("test_options_declared.py", "test_ranges_refused_on_both_faces"),
    ("test_package_face.py", "test_each_run_kind_is_a_function_of_the_package"),
    ("test_package_face.py", "test_each_model_call_has_an_async_twin_and_runs_it"),
    ("engine/test_engine_settings.py", "test_every_api_call_takes_engine_and_its_keywords"),
    ("engine/test_resume_api.py", "test_interrupted_run_resumes_from_python"),
    ("viewer/test_report_every_method.py", "test_each_kind_has_its_section_and_its_runs_line"),
    ("schema/test_generate.py", "test_each_kind_has_three_schemas_with_a_versioned_id"),
    ("schema/test_folders.py", "test_a_folder_of_each_kind_fits_its_schemas"),
    ("schema/test_schema_cli.py",
     "test_each_kinds_schema_is_printed_and_its_example_run_checks"),
    ("export/test_frames.py", "test_records_frame_counts_and_means_are_the_summarys"),
    ("export/test_tables_join.py", "test_each_kinds_tables_have_the_one_shape"),
    ("export/test_inspect_export.py",
     "test_each_kinds_run_reads_back_with_its_samples_and_scores"),
)


def with_echo_built_in(src: Path) -> Path:
    """A copy of the package under `src`, the toy method one of its methods: its folder and
    one line of BUILT_IN."""
    package = Path(shutil.copytree(PACKAGE, src / "verstehen",
                                   ignore=shutil.ignore_patterns("__pycache__")))
    echo = package / "methods" / "echo"
    echo.mkdir()
    for path in sorted((TESTS / "toy_method").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        (echo / path.name).write_text(text.replace("toy_method.", "verstehen.methods.echo."),
                                      encoding="utf-8")
    registry = package / "methods" / "registry.py"
    text = registry.read_text(encoding="utf-8")
    last = re.search(r"BUILT_IN = \(\n(?:    .*\n)*?\)\n", text)
    assert last is not None, "BUILT_IN is not where it was"
    at = last.end() - len(")\n")
    registry.write_text(text[:at] + LINE + text[at:], encoding="utf-8")
    return src


def test_the_toy_method_built_in_gets_every_registry_test(tmp_path: Path) -> None:
    src = with_echo_built_in(tmp_path / "src")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), str(TESTS)])}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-m", "every_method", "-v", "-p", "no:cacheprovider",
         "--basetemp", str(tmp_path / "inner"), *(str(TESTS / f) for f in FILES)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    passed = [line.split(" ", 1)[0] for line in done.stdout.splitlines()
              if " PASSED" in line]
    # the copy was the package tested: its echo kind has cases (the installed one has none)
    echo = [node for node in passed if "echo" in re.split(r"[\[\]-]", node.partition("[")[2])]
    for file, test in ECHO_CASES:
        assert any(node.startswith(f"tests/{file}::{test}[") for node in echo), (file, test)
    assert len(echo) >= len(ECHO_CASES)
