"""A small finished consistency run folder made with a scripted model, for the tests that every
run kind goes through (`RunKind.example`), and the small data set it reads."""

from __future__ import annotations

import json
from pathlib import Path

from verstehen.engine.store.safe_files import write_file
from verstehen.methods.consistency.options import consistency
from verstehen.testing.scripted import ScriptedModel

# a knowledge base of four edges, as an edge table
KB = """relation\tstart\tend
UsedFor\tbook\tread
AtLocation\tbook\tlibrary
AtLocation\tdog\tkennel
IsA\tdog\tanimal
"""
# three CSQA questions: id, stem, choices, answer key
QUESTIONS = [("q1", "Where would you read a book?", ["library", "ocean", "sky"], "A"),
             ("q2", "Where is a book kept in a library?", ["shelf", "library", "cloud"], "B"),
             ("q3", "What animal lives in a kennel?", ["dog", "fish", "bird"], "A")]

ADVICE = "give the example another folder"


def write_data(folder: Path) -> tuple[Path, Path]:
    """QUESTIONS as a CSQA file (q.jsonl) and KB as an edge table (kb.tsv) in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    questions = folder / "q.jsonl"
    write_file(questions, "".join(json.dumps({
        "id": i, "answerKey": key, "question": {"stem": stem, "choices": [
            {"label": "ABC"[k], "text": t} for k, t in enumerate(choices)]}}) + "\n"
        for i, stem, choices, key in QUESTIONS), ADVICE)
    kb = folder / "kb.tsv"
    write_file(kb, KB, ADVICE)
    return questions, kb


def consistency_example(runs_dir: Path, cache: Path, tag: str = "") -> Path:
    """QUESTIONS and KB (written beside runs_dir) asked of a scripted model's log-probabilities,
    with 50 bootstrap resamples."""
    questions, kb = write_data(runs_dir.parent)
    return consistency(ScriptedModel(f"scripted/lp{tag}"), questions=questions, kb=kb,
                       resamples=50, runs_dir=runs_dir, cache=cache).run_dir
