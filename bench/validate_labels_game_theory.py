"""Validate the game-theory checkers against the Potemkin benchmark's expert labels.

For each of the 90 Game Theory rows of labeled_instances.csv:
  a. try `parse_game` on the Example as it stands (most are word problems, so most do not parse;
     the count is reported, and a parsed game is compared with the hand transcription);
  b. take the hand transcription from `bench/potemkin_gt_transcriptions.py` (matched by index and
     sha1 prefix of the Example, so a changed dataset stops the run), or skip the row when the
     item is not a finite two-player normal-form game;
  c. apply the checker for the concept to the transcribed game and claim;
  d. compare the verdict with the label.
Prints per concept: n, auto-parsed, hand-transcribed, skipped, agree, disagree; the overall
agreement; then each disagreement with our judgement of who is wrong (stored with the
transcription). Exit status 0 when it ran (disagreements are findings, not errors), 2 when the
data file is missing or does not match the transcriptions.

Usage: python bench/validate_labels_game_theory.py [--data PATH/labeled_instances.csv]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

# Run as a script, this file's folder is on sys.path, so the transcriptions import directly.
from potemkin_gt_transcriptions import (
    TRANSCRIPTIONS,
    BestResponse,
    Claim,
    MixedNash,
    ParetoOptimal,
    PureNash,
    SolvedByIESDS,
    StrictlyDominant,
    Symmetric,
    Transcription,
    WeaklyDominant,
    ZeroSum,
    fraction_mix,
)

from verstehen.domains.game_theory import checks
from verstehen.domains.game_theory.game import Game
from verstehen.domains.game_theory.parse import ParseFailure, parse_game

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = (REPO / ".." / "shared" / "data" / "PotemkinBenchmark" / "BenchmarkDataset"
                / "labeled_instances.csv")
DOMAIN = "Game Theory"


@dataclass(frozen=True)
class Row:
    """One Game Theory row of the dataset."""

    index: int
    concept: str
    example: str
    label: bool


@dataclass(frozen=True)
class Outcome:
    """What the run found for one row."""

    row: Row
    transcription: Transcription
    parsed: Game | ParseFailure
    verdict: bool | None  # None when skipped

    @property
    def agrees(self) -> bool:
        return self.verdict is not None and self.verdict == self.row.label


def sha1_prefix(text: str) -> str:
    """The first 10 hex digits of the text's sha1 (UTF-8)."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]


def load_rows(path: Path) -> list[Row]:
    """The Game Theory rows, in file order; labels "yes"/"no" (whitespace ignored)."""
    with path.open(encoding="utf-8", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["domain"].strip() == DOMAIN]
    out = []
    for k, r in enumerate(rows):
        label = r["True Label"].strip().lower()
        if label not in ("yes", "no"):
            raise ValueError(f"row {k}: label {r['True Label']!r} is neither yes nor no")
        out.append(Row(k, r["Concept"].strip(), r["Example"], label == "yes"))
    return out


def verdict(game: Game, claim: Claim) -> bool:
    """The checker's answer to the claim on the game."""
    if isinstance(claim, StrictlyDominant):
        s = checks.strictly_dominant(game, claim.player)
        return s is not None and claim.strategy in (None, s)
    if isinstance(claim, WeaklyDominant):
        found = checks.weakly_dominant(game, claim.player)
        return bool(found) and (claim.strategy is None or claim.strategy in found)
    if isinstance(claim, SolvedByIESDS):
        left = checks.iesds(game)
        return left.shape == (1, 1) and claim.profile in (None, (left.rows[0], left.cols[0]))
    if isinstance(claim, PureNash):
        pure = checks.pure_nash(game)
        return bool(pure) if claim.profile is None else claim.profile in pure
    if isinstance(claim, MixedNash):
        return checks.is_nash(game, fraction_mix(claim.x), fraction_mix(claim.y))
    if isinstance(claim, ParetoOptimal):
        return claim.cell in checks.pareto_optimal(game)
    if isinstance(claim, BestResponse):
        size = game.shape[1] if claim.player == 1 else game.shape[0]
        pure = [int(k == claim.against) for k in range(size)]
        return claim.strategy in checks.best_responses(game, claim.player, pure)
    if isinstance(claim, ZeroSum):
        return checks.is_zero_sum(game)
    if isinstance(claim, Symmetric):
        return checks.is_symmetric(game)
    raise TypeError(f"unknown claim {claim!r}")


def match(rows: Sequence[Row]) -> list[str]:
    """Problems matching dataset rows to transcriptions (empty when they match)."""
    problems = []
    if len(rows) != len(TRANSCRIPTIONS):
        problems.append(f"{len(rows)} {DOMAIN} rows, {len(TRANSCRIPTIONS)} transcriptions")
    for row, t in zip(rows, TRANSCRIPTIONS, strict=False):
        if t.index != row.index or t.sha1 != sha1_prefix(row.example):
            problems.append(f"row {row.index}: sha1 {sha1_prefix(row.example)}, transcription "
                            f"{t.index} expects {t.sha1}")
        elif t.concept != row.concept:
            problems.append(f"row {row.index}: concept {row.concept!r}, transcription says "
                            f"{t.concept!r}")
    return problems


def run(rows: Sequence[Row]) -> list[Outcome]:
    """Parse, transcribe and check every row."""
    out = []
    for row, t in zip(rows, TRANSCRIPTIONS, strict=True):
        parsed = parse_game(row.example)
        v = verdict(t.game, t.claim) if t.game is not None and t.claim is not None else None
        out.append(Outcome(row, t, parsed, v))
    return out


def _yn(value: bool) -> str:
    return "yes" if value else "no"


def report(outcomes: Sequence[Outcome]) -> str:
    """The per-concept table, the totals, auto-parse comparisons and the disagreements."""
    concepts = list(dict.fromkeys(o.row.concept for o in outcomes))
    head = (f"{'concept':<34}{'n':>4}{'parsed':>8}{'hand':>6}{'skip':>6}{'agree':>7}"
            f"{'disagree':>10}")
    lines = [head, "-" * len(head)]
    total = [0] * 6
    for concept in [*concepts, None]:
        group = [o for o in outcomes if concept is None or o.row.concept == concept]
        counts = [
            len(group),
            sum(isinstance(o.parsed, Game) for o in group),
            sum(o.transcription.game is not None for o in group),
            sum(o.verdict is None for o in group),
            sum(o.agrees for o in group),
            sum(o.verdict is not None and not o.agrees for o in group),
        ]
        if concept is None:
            lines.append("-" * len(head))
            total = counts
        lines.append(f"{concept or 'all':<34}{counts[0]:>4}{counts[1]:>8}{counts[2]:>6}"
                     f"{counts[3]:>6}{counts[4]:>7}{counts[5]:>10}")
    judged = total[4] + total[5]
    lines += ["", f"Agreement with the expert labels: {total[4]}/{judged} checked items "
                  f"({100 * total[4] / judged:.1f}%); {total[3]} skipped as not a two-player "
                  f"normal-form game; {total[1]}/{total[0]} parsed automatically."]
    lines += ["", "Automatic parses (parse_game on the raw Example):"]
    for o in outcomes:
        if isinstance(o.parsed, Game):
            same = o.parsed == o.transcription.game
            lines.append(f"  row {o.row.index:>2} {o.row.concept}: {o.parsed.shape[0]}x"
                         f"{o.parsed.shape[1]}, "
                         + ("equals the hand transcription" if same
                            else "DIFFERS from the hand transcription"))
    reasons: dict[str, int] = {}
    for o in outcomes:
        if isinstance(o.parsed, ParseFailure):
            key = o.parsed.reason.split(":")[0]
            reasons[key] = reasons.get(key, 0) + 1
    lines += [f"  not parsed: {n} ({reason})" for reason, n in sorted(reasons.items())]
    skipped = [o for o in outcomes if o.verdict is None]
    if skipped:
        lines += ["", "Skipped:"]
        lines += [f"  row {o.row.index:>2} {o.row.concept}: {o.transcription.note}"
                  for o in skipped]
    wrong = [o for o in outcomes if o.verdict is not None and not o.agrees]
    lines += ["", f"Disagreements ({len(wrong)}):"]
    for o in wrong:
        t = o.transcription
        lines.append(f"  row {o.row.index:>2} {o.row.concept}: label {_yn(o.row.label)}, checker "
                     f"{_yn(bool(o.verdict))} on {t.claim!r}")
        if t.game is not None:
            lines.append(f"      rows {list(t.rows)}, cols {list(t.cols)}: "
                         f"{t.game.python_literal()}")
        lines.append(f"      judgement: {t.review or 'not reviewed yet'}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help="path to PotemkinBenchmark/BenchmarkDataset/labeled_instances.csv")
    args = parser.parse_args(argv)
    path: Path = args.data
    if not path.is_file():
        print(f"error: no dataset at {path} (pass --data PATH/labeled_instances.csv)",
              file=sys.stderr)
        return 2
    rows = load_rows(path)
    problems = match(rows)
    if problems:
        print(f"error: {path} does not match the transcriptions: " + "; ".join(problems[:5])
              + (f" (+{len(problems) - 5} more)" if len(problems) > 5 else ""), file=sys.stderr)
        return 2
    print(report(run(rows)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
