"""The commands that call no model (`plan`, `bounds`, `certify --scores`) declare their
parameters once: the criterion's are the very declarations `certify` uses, and a bad value is
one line from Python as from the CLI."""

from __future__ import annotations

import argparse
import dataclasses
import math

import pytest

import verstehen as vs
from verstehen.cli.main import build_parser
from verstehen.methods.certification.options import CertifyOptions
from verstehen.methods.certification.parameters import CertifyScoresParameters, PlanParameters
from verstehen.methods.options import SHARED, declared

from conftest import Cli

CRITERION = ("pg", "rid", "rid_test_length", "delta", "first_look")


def declaration(cls: type, name: str) -> tuple[object, object]:
    """A parameter's default and its Option, the flag left out (a shared flag differs there)."""
    field = next(f for f in dataclasses.fields(cls) if f.name == name)
    meta = declared(field)
    assert meta is not None
    return field.default, dataclasses.replace(meta, flag=None)


@pytest.mark.parametrize("name", CRITERION)
def test_the_criterion_is_declared_once_for_certify_plan_and_scores(name: str) -> None:
    """certify, plan and certify --scores take each criterion parameter with one default,
    help, range and reader; --scores takes it from certify's flag."""
    assert declaration(PlanParameters, name) == declaration(CertifyOptions, name)
    assert declaration(CertifyScoresParameters, name) == declaration(CertifyOptions, name)
    field = next(f for f in dataclasses.fields(CertifyScoresParameters) if f.name == name)
    meta = declared(field)
    assert meta is not None and meta.flag == SHARED


def test_plan_and_certify_state_the_same_criterion_help() -> None:
    """`plan --help` and `certify --help` say the same of --pg, --rid and --delta, with the
    default criterion's values (0.8, 0.2, 0.05: DEFAULT_CRITERION in the paper's Table 2)."""
    commands = next(a for a in build_parser()._actions
                    if isinstance(a, argparse._SubParsersAction))
    helps = {word: {a.dest: a.help for a in commands.choices[word]._actions}
             for word in ("plan", "certify")}
    for name, default in (("pg", "0.8"), ("rid", "0.2"), ("delta", "0.05")):
        assert helps["plan"][name] == helps["certify"][name]
        assert f"(default {default}" in (helps["plan"][name] or "")


def test_a_bad_first_look_of_scores_is_one_line() -> None:
    """first_look 0 was a ValueError from deep inside; it is refused as the flag refuses it."""
    with pytest.raises(vs.UserError, match="first_look must be at least 1, not 0"):
        vs.certify_scores([1.0] * 20, sequential=True, first_look=0)


def test_bounds_takes_any_count_from_python_and_the_cli_keeps_its_limit(cli: Cli) -> None:
    """A mean over 20,000,000 samples: Hoeffding's interval is 0.5 ± sqrt(ln(1/δ) / 2n) =
    0.5 ± sqrt(ln 20 / 4e7) (worked out from the formula); the CLI refuses so large a count
    as a typo, as it always did."""
    wide = vs.bounds(0.5, 20_000_000)
    assert wide.hoeffding_lower == pytest.approx(0.5 - math.sqrt(math.log(20) / 4e7), abs=1e-12)
    done = cli(["bounds", "--mean", "0.5", "--n", "20000000"])
    assert done.returncode == 2
    assert "--n" in done.stderr and "10,000,000" in done.stderr
