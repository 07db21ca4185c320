"""A plugin domain's concept needs at least two phrasings (issue 44, item 7): one with fewer is
left out in one warning line that says the rule and why, said once per process however many
commands read the domains (before: the line did not say why, and came again)."""

from __future__ import annotations

import pytest
from test_plugin_loading import ONE_PHRASING, PARITY, Install, domain_points  # noqa: F401

from conftest import Cli


def test_one_phrasing_is_one_line_once_per_process_saying_the_rule(
        domain_points: Install, cli: Cli) -> None:  # noqa: F811
    domain_points(parity=PARITY, single="test_plugin_loading:ONE_PHRASING")
    said = []
    for command in (["concepts"], ["scopes"], ["concepts"], ["certify", "--help"]):
        done = cli(command)
        assert done.returncode == 0, done.stderr
        said += done.stderr.splitlines()
    warnings = [line for line in said if line.startswith("verstehen: warning: ")]
    assert len(warnings) == 1, said
    (line,) = warnings
    assert "domain plugin 'single'" in line and "'single/even' has 1 phrasing" in line
    assert "at least 2" in line and "rephrase" in line
    assert "single/even" not in cli(["concepts"]).stdout  # left out, parity stays
    assert "parity/" in cli(["concepts"]).stdout


@pytest.mark.parametrize("phrasings", [0, 1, "2", None])
def test_fewer_than_two_phrasings_or_not_a_number_is_refused(phrasings: object) -> None:
    from test_plugin_loading import BareEvenNumber, _domain

    from verstehen.domains.plugins import _domain as checked

    tasks = BareEvenNumber("single/even")
    tasks.phrasings = phrasings  # type: ignore[assignment]
    with pytest.raises(ValueError, match="needs at least 2 phrasings"):
        checked(_domain("single", tasks, "Single"), "single")
