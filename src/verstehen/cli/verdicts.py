"""Verdicts for CI: `--fail-on` (exit 3 when a verdict of the run is in the list) and `--junit
FILE` (a JUnit XML summary, one testcase per verdict), shared by `certify` and `audit`.

Both change how the command ends, never what the run asks or records, so they are flags of
the CLI alone: the API returns its results whatever their verdicts. The order of exit codes:
failed calls (1) come first, a run with failed calls having no verdict to trust; then a
verdict in --fail-on (3); else 0. Usage errors stay 2 and Ctrl-C 130.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from verstehen.engine.store.safe_files import (
    exists_unfollowed,
    is_regular,
    kind_of_file,
    write_file,
)
from verstehen.methods.certification.text import explain
from verstehen.methods.certification.verdict import Decision, Verdict
from verstehen.methods.certification.verdict_suite import VerdictCase as VerdictCase
from verstehen.methods.certification.verdict_suite import VerdictSuite as VerdictSuite
from verstehen.text.tables import plural

EXIT_VERDICT = 3
# the verdicts --fail-on takes, spelled as the data spells them (the enum's values)
FAIL_ON_WORDS = {decision.value: decision for decision in (
    Decision.DOES_NOT_UNDERSTAND, Decision.INCONCLUSIVE, Decision.UNDERSTANDS)}
# the spelling --fail-on took before (does-not-understand): read, with a line saying the new one
HYPHENATED = {word.replace("_", "-"): word for word in FAIL_ON_WORDS if "_" in word}
FAIL_ON_HELP = (
    "exit with code 3 when any verdict of the run (certify: each model's on each scope; "
    "audit: each model's on each target) is one of these, a comma list of "
    f"{', '.join(FAIL_ON_WORDS)} (e.g. "
    "does_not_understand,inconclusive to gate CI; understands for a model that must not be "
    "certified). Failed calls still exit 1 first, since such a run has no verdict to trust; "
    "bad flags exit 2, Ctrl-C 130")
JUNIT_HELP = (
    "also write a JUnit XML summary to FILE for CI: one testcase per verdict, failed when its "
    "verdict is in --fail-on (none fails without it), with the verdict, mean score and bounds "
    "in its message; a verdict missing for failed calls is an error")
# characters XML 1.0 cannot hold (control characters, lone surrogates from undecodable bytes)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def fail_on(text: str) -> frozenset[Decision]:
    """The verdicts of a `--fail-on` comma list (a flag type: a bad word fails the parse)."""
    typed = [word.strip().lower() for word in text.split(",")]
    words = [HYPHENATED.get(word, word) for word in typed]
    if not any(words):
        raise argparse.ArgumentTypeError(f"give one or more of {', '.join(FAIL_ON_WORDS)}")
    unknown = [word for word in words if word not in FAIL_ON_WORDS]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"{unknown[0]!r} is not a verdict: give a comma list of {', '.join(FAIL_ON_WORDS)}")
    for old in dict.fromkeys(word for word in typed if word in HYPHENATED):
        print(f"verstehen: warning: --fail-on {old} is now spelled {HYPHENATED[old]}, as the "
              "data spells it; the old spelling goes in the next release", file=sys.stderr)
    return frozenset(FAIL_ON_WORDS[word] for word in words)


def junit_file(text: str) -> Path:
    """A path a JUnit file can be written to: in an existing folder, and not a link, folder
    or FIFO (checked before the run, so a typo costs no calls)."""
    path = Path(text)
    if not path.name or not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r}: no such folder to write the file in")
    if exists_unfollowed(path) and not is_regular(path):
        raise argparse.ArgumentTypeError(
            f"{text!r} is {kind_of_file(os.lstat(path).st_mode)}: give a file path")
    return path


def add_verdict_flags(parser: argparse.ArgumentParser) -> None:
    """Add --fail-on and --junit to a command that decides verdicts."""
    parser.add_argument("--fail-on", type=fail_on, default=frozenset(), metavar="VERDICTS",
                        help=FAIL_ON_HELP)
    parser.add_argument("--junit", type=junit_file, default=None, metavar="FILE",
                        help=JUNIT_HELP)


def end_with_verdicts(args: argparse.Namespace, suite: VerdictSuite, code: int) -> int:
    """Write the --junit file, then the exit code: `code` when it is not 0 (failed calls come
    first), else 3 when a verdict is in --fail-on (said in one line on stderr), else 0."""
    chosen: frozenset[Decision] = getattr(args, "fail_on", frozenset())
    if (path := getattr(args, "junit", None)) is not None:
        write_junit(path, suite, chosen)
    if code != 0:
        return code
    if failing := suite.failing(chosen):
        named = ", ".join(f"{case.model} on {case.name} ({case.verdict.decision.words})"
                          for case in failing if case.verdict is not None)
        print(f"verstehen: {plural(len(failing), 'verdict')} in --fail-on: {_clean(named)}; "
              f"exit {EXIT_VERDICT}", file=sys.stderr)
        return EXIT_VERDICT
    return 0


def junit_tree(suite: VerdictSuite, fail_on: frozenset[Decision]) -> ET.Element:
    """The JUnit XML of a run: <testsuites> holding one <testsuite>, one <testcase> per
    verdict (classname the model, name the scope or target); a verdict in `fail_on` is a
    <failure>, a missing verdict an <error>, every verdict also in <system-out>."""
    failing = set(map(id, suite.failing(fail_on)))
    errors = sum(case.verdict is None for case in suite.cases)
    counts = {"tests": str(len(suite.cases)), "failures": str(len(failing)),
              "errors": str(errors), "skipped": "0"}
    if suite.seconds is not None:
        counts["time"] = f"{suite.seconds:.3f}"
    counts["name"] = f"verstehen {suite.command}"
    root = ET.Element("testsuites", counts)
    tested = ET.SubElement(root, "testsuite", counts)
    properties = ET.SubElement(tested, "properties")
    for name, value in _suite_properties(suite, fail_on):
        ET.SubElement(properties, "property", name=name, value=_clean(value))
    for case in suite.cases:
        element = ET.SubElement(tested, "testcase", classname=_clean(case.model),
                                name=_clean(case.name))
        if case.verdict is None:
            ET.SubElement(element, "error", type="no_verdict",
                          message=_clean(case.no_verdict)).text = _clean(case.no_verdict)
            continue
        line = _clean(str(case.verdict))
        if id(case) in failing:
            ET.SubElement(element, "failure", type=case.verdict.decision.value,
                          message=line).text = _details(case.verdict)
        ET.SubElement(element, "system-out").text = line
    return root


def write_junit(path: Path, suite: VerdictSuite, fail_on: frozenset[Decision]) -> None:
    """Write the suite's JUnit XML to `path` (replaced atomically, never through a link)."""
    root = junit_tree(suite, fail_on)
    ET.indent(root)
    data = ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"
    write_file(path, data, "pass --junit with another path")


def _suite_properties(suite: VerdictSuite, fail_on: frozenset[Decision]) -> list[tuple[str, str]]:
    """What the run was decided under: its folder, the criterion and the --fail-on list."""
    out = [] if suite.run_dir is None else [("run", str(suite.run_dir))]
    if (c := suite.criterion) is not None:
        out += [("pg", f"{c.pg:g}"), ("rid", f"{c.rid:g}"), ("delta", f"{c.delta:g}")]
    chosen = [word for word, decision in FAIL_ON_WORDS.items() if decision in fail_on]
    return [*out, ("fail-on", ",".join(chosen))]


def _details(verdict: Verdict) -> str:
    """The failure's text: the verdict in words, with what it rests on (as certify prints)."""
    return _clean("\n".join(explain(verdict)))


def _clean(text: str) -> str:
    """Text XML can hold: characters it cannot, escaped as \\xNN or \\uNNNN."""
    return _NOT_XML.sub(lambda m: repr(m.group())[1:-1], text)
