"""The package type-checks clean under the project's mypy configuration (pyproject.toml) in
strict mode, and the bugs the checker found stay fixed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from mypy import api

from verstehen.methods.certification.decide import ExplainedFamily, certify_explained
from verstehen.methods.certification.text import explain

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_package_type_checks_clean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the configuration's paths (mypy_path = "src") are relative
    # --strict as well as the configuration's `strict = true`: a strict error fails this test
    # even if the configuration loses the setting
    out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml"), "--strict",
                                "--cache-dir", str(tmp_path / "mypy_cache"),
                                "--no-error-summary"])
    assert status == 0, f"mypy --strict found errors:\n{out}{err}"


def test_explained_family_known_exactly_has_no_question_count() -> None:
    # a family given by its exact score ran no program (m is None): the text said "on None
    # questions" before the checker flagged plural(None, ...)
    families = [ExplainedFamily("lookup", 0.3, exact_score=1.0),
                ExplainedFamily("formula", 0.2, exact_score=0.7)]
    verdict = certify_explained(np.full(400, 0.6), families, 0.7, 0.02, 0.05)
    cover = next(line for line in explain(verdict) if "explanations cover" in line)
    assert "None" not in cover
    # both families are named, each as known exactly: 0.3 + 0.2 of the scope is covered
    assert "lookup (program score 1.000 known exactly)" in cover
    assert "formula (program score 0.700 known exactly)" in cover
    assert "covers 50%" not in cover and "cover 50%" in cover
