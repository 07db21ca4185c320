"""Run the poetry checkers over the Potemkin benchmark's labeled Haiku, Sonnet and Anapest rows.

Usage: python bench/validate_labels_poetry.py [--data PATH]
Prints, per concept, n / agree / disagree, then every disagreement with what the checker found.
The data is read where it lies (it is not ours to copy); exit 2 when it is missing.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Callable
from pathlib import Path

from verstehen.domains.poetry.checks import (
    Verdict,
    is_anapestic,
    is_haiku,
    is_shakespearean_sonnet,
    poem_lines,
    syllable_profile,
)
from verstehen.domains.poetry.rhyme import rhyme_scheme

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared/data/PotemkinBenchmark/BenchmarkDataset/labeled_instances.csv"
CHECKERS: dict[str, Callable[[str], Verdict]] = {
    "Haiku": is_haiku,
    "Shakespearean Sonnet": is_shakespearean_sonnet,
    "Anapest": is_anapestic,
}


def _clean(example: str) -> str:
    """The example without the quotation marks some rows wrap around the whole poem."""
    text = example.strip()
    if len(text) > 1 and text[0] == text[-1] == '"':
        text = text[1:-1]
    return text


def _found(text: str, verdict: Verdict) -> str:
    from verstehen.domains.poetry.pronounce import words

    counts = "-".join("/".join(map(str, sorted(c))) for c in syllable_profile(text))
    finals = [ws[-1] for line in poem_lines(text) if (ws := words(line))]
    est = ", ".join(verdict.estimated_words) or "none"
    return (f"    checker: {'yes' if verdict.ok else 'no'} -- {verdict.reason}\n"
            f"    syllables per line: {counts}; scheme: {rhyme_scheme(finals)}; "
            f"estimated words: {est}")


def main(argv: list[str] | None = None) -> int:
    """Print the agreement figures; 0 on success, 2 when the data file is missing."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT, help="labeled_instances.csv")
    args = ap.parse_args(argv)
    if not args.data.is_file():
        print(f"error: labeled data not found at {args.data} (pass --data PATH)", file=sys.stderr)
        return 2
    with args.data.open(newline="", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["Concept"] in CHECKERS]
    for concept, check in CHECKERS.items():
        mine = [r for r in rows if r["Concept"] == concept]
        disagreements = []
        for r in mine:
            text = _clean(r["Example"])
            verdict = check(text)
            label = r["True Label"].strip().lower() == "yes"
            if verdict.ok != label:
                disagreements.append((r, text, verdict))
        n = len(mine)
        print(f"{concept}: n={n} agree={n - len(disagreements)} disagree={len(disagreements)}")
        for r, text, verdict in disagreements:
            first = " / ".join(poem_lines(text)[:2])
            more = "..." if len(poem_lines(text)) > 2 else ""
            print(f"  label {r['True Label']}: {first[:70]}{more}")
            print(_found(text, verdict))
    return 0


if __name__ == "__main__":
    sys.exit(main())
