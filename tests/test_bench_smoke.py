"""Every script in bench/ starts and finishes at a tiny size (the figures themselves are for a
run on an idle machine, not for a test)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SHARED_DATA, needs_shared

BENCH = Path(__file__).resolve().parents[1] / "bench"
LABELS = SHARED_DATA / "PotemkinBenchmark" / "BenchmarkDataset" / "labeled_instances.csv"
NEEDS_DATA = needs_shared()

SMOKE_RUNS = {
    "audit_power.py": (["--max-questions", "32", "--old-budget", "16"],
                       "largest wrong-verdict rate"),
    "audit_time.py": (["--smoke"], "audit, empty cache"),
    "batched_generation.py": (["--smoke"], "replies that differ between all at once"),
    "batch_million.py": (["--lines", "2000", "--stop-after", "200"],
                         "seconds to the first request"),
    "concept_speed.py": (["--items", "50"], "right"),
    "embedded_load.py": (["--tiny", "--busy", "1"], "loaded, default threads"),
    "endpoints_throughput.py": (["--requests", "40", "--limit", "2", "--repeats", "1"],
                                "peak in flight per endpoint"),
    "engine_overhead.py": (["--requests", "40", "--concurrency", "8", "--repeats", "1"],
                           "verstehen"),
    "poetry_corpus.py": (["--near-misses", "20", "--quiet"], "unexplained rate at most 2%"),
    "report_speed.py": (["--records", "100"], "records"),
    "short_generation.py": (["--answers", "2", "--tokens", "1"], "one batch"),
}
DATA_RUNS = {
    "consistency_likelihood.py": (["--questions", "1", "--no-reference", "--data",
                                   str(SHARED_DATA)], "now vs before"),
    "real_replies.py": (["--data", str(SHARED_DATA / "RealReplies")], "read otherwise than"),
    "validate_labels_game_theory.py": (["--data", str(LABELS)], "agree"),
    "validate_labels_poetry.py": (["--data", str(LABELS)], "agree"),
}


def run_bench(name: str, args: list[str]) -> str:
    """Run one bench script to its end; its output."""
    done = subprocess.run([sys.executable, str(BENCH / name), *args], capture_output=True,
                          text=True, timeout=600, cwd=BENCH.parent)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_every_script_is_covered():
    """A new bench script gets a smoke run here (the transcriptions file is data, imported;
    figure4_paper.py needs the upstream records, which are not shared data: it runs on a
    hand-made checkout in tests/potemkin/test_figures_expansion.py)."""
    scripts = {p.name for p in BENCH.glob("*.py")} - {"potemkin_gt_transcriptions.py",
                                                      "lm_eval_reference.py", "figure4_paper.py",
                                                      "real_poems.py", "contract_snapshot.py"}
    assert scripts == set(SMOKE_RUNS) | set(DATA_RUNS)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SMOKE_RUNS))
def test_bench_runs(name):
    """The script runs at a tiny size and prints its table."""
    args, expected = SMOKE_RUNS[name]
    assert expected in run_bench(name, args)


@pytest.mark.slow
@NEEDS_DATA
@pytest.mark.parametrize("name", sorted(DATA_RUNS))
def test_data_bench_runs(name):
    """The scripts that read the shared data sets run at a tiny size."""
    args, expected = DATA_RUNS[name]
    assert expected in run_bench(name, args)


@pytest.mark.slow
def test_contract_snapshot_reads_the_same_folders_the_same_way(tmp_path: Path) -> None:
    """bench/contract_snapshot.py makes a run folder of every kind, then two reads of them
    write the same --help, runs lines and report pages byte for byte (a page that held the
    time it was made, or an unordered set, would differ)."""
    runs, first, second = tmp_path / "runs", tmp_path / "first", tmp_path / "second"
    run_bench("contract_snapshot.py", [str(first), str(runs), "--make"])
    run_bench("contract_snapshot.py", [str(second), str(runs)])
    written = sorted(p.name for p in first.iterdir())
    assert "help.txt" in written and "runs.txt" in written
    assert len([n for n in written if n.startswith("report-")]) >= 8
    assert written == sorted(p.name for p in second.iterdir())
    for name in written:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
