"""`verstehen imagine analyze`: the paper's analyses of sections 3.1-3.4 over run folders."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path
from typing import Any

from verstehen.cli.flags import print_json
from verstehen.engine.store import RunStore
from verstehen.methods.imagination.show import once_each


def _questions(runs: list[tuple[RunStore, str]]) -> list[dict[str, Any]]:
    """Questions of the generate runs given and of those the answer runs answered, once each."""
    folders = [store.path for store, command in runs if command == "imagine-generate"]
    for store, command in runs:
        if command == "imagine-answer":
            folders += [Path(p) for p in store.info()["config"]["questions"]]
    seen: set[Path] = set()
    out: list[dict[str, Any]] = []
    for folder in folders:
        if folder.resolve() in seen or not (folder / "run.json").is_file():
            continue
        seen.add(folder.resolve())
        out += [r for r in RunStore(folder).records()
                if r["kind"] == "question" and r["status"] == "ok"]
    return once_each(out)


def similarity(questions: list[dict[str, Any]], method: str) -> dict[str, Any]:
    """Eq. 2 between question models, per question type, on questions and on paragraphs."""
    from verstehen.methods.imagination.similarity import (
        embedding_vectors,
        qm_similarity,
        tfidf_vectors,
    )

    vectorize = embedding_vectors if method == "embeddings" else tfidf_vectors
    out: dict[str, Any] = {}
    for qtype in ("DQ", "CQ", "SQ"):
        rows = [q for q in questions if q["qtype"] == qtype]
        if rows:
            texts = [" ".join([q["stem"], *q["choices"]]) for q in rows]
            keyed = [(q["qm"], q["topic"], t) for q, t in zip(rows, texts, strict=True)]
            out[f"{qtype} questions"] = qm_similarity(keyed, vectorize(texts))
    with_context = [q for q in questions if q["context"]]
    if with_context:
        texts = [q["context"]["paragraph"] for q in with_context]
        keyed = [(q["qm"], q["topic"], t) for q, t in zip(with_context, texts, strict=True)]
        out["context paragraphs"] = qm_similarity(keyed, vectorize(texts))
    return out


def analyze(args: argparse.Namespace, runs: list[tuple[RunStore, str]]) -> int:
    """Print (or give as JSON) every analysis the runs have data for; write length-ranks.png."""
    from verstehen.methods.imagination import report, stats

    questions = _questions(runs)
    records = once_each([r for store, c in runs if c == "imagine-answer"
                         for r in store.records()])
    answers = [r for r in records if r["kind"] == "answer"]
    fiction = [r for r in records if r["kind"] == "fiction"]
    sections: list[str] = []
    result: dict[str, Any] = {}
    if questions:
        ranks = stats.length_rank_distribution(questions)
        png = (args.out or runs[0][0].path) / "length-ranks.png"
        png.parent.mkdir(parents=True, exist_ok=True)
        report.plot_length_ranks(ranks, png)
        sections.append(report.length_rank_text(ranks) + f"\nfigure: {png}")
        result["length_ranks"] = {f"{qm} {qtype}": v for (qm, qtype), v in ranks.items()}
    if answers:
        deciles: dict = {}
        for qtype in {a["qtype"] for a in answers}:  # fewer questions than 10: one per bin
            of_type = [a for a in answers if a["qtype"] == qtype]
            bins = min(10, len({a["question_id"] for a in of_type}))
            deciles.update(stats.by_length_decile(of_type, bins))
        sections.append(report.decile_text(deciles))
        result["deciles"] = {f"{t} {am}": [asdict(r) for r in rows]
                             for (t, am), rows in deciles.items()}
        positions = stats.by_position(answers)
        if positions:
            sections.append(report.position_text(positions))
            result["positions"] = {am: [asdict(r) for r in rows] for am, rows in positions.items()}
    if fiction:
        rates = stats.fiction_rates(fiction)
        sections.append(report.fiction_text(rates))
        result["fiction"] = {f"{qm} | {am}": list(v) for (qm, am), v in rates.items()}
    if questions and args.similarity != "none":
        sims = similarity(questions, args.similarity)
        for name, sim in sims.items():
            sections.append(f"{name}:\n" + report.similarity_text(sim, args.similarity))
        result["similarity"] = {name: {f"{a} | {b}": v for (a, b), v in sim.items()}
                                for name, sim in sims.items()}
    if args.json:
        print_json(result)
    else:
        print("\n\n".join(sections) if sections else "nothing to analyze in these runs")
    return 0
