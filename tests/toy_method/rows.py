"""How an echo run folder becomes rows (one per prompt asked, per sample) and results."""

from __future__ import annotations

from pathlib import Path

from toy_method.run import PROMPTS, EchoResult
from verstehen.rows import ResultGroup, RunRows, SampleRow, run_model, run_records


def rows(run_dir: Path) -> list[SampleRow]:
    """One row per call: the prompt, the reply, the sample it was."""
    model = run_model(run_dir)
    return [SampleRow(id=f"{r['prompt']}-{r['sample']}", model=model, scope=None,
                      input=PROMPTS[r["prompt"]], reply=r["text"], expected=None, score=None,
                      grade=None, metadata={"sample": r["sample"]})
            for r in run_records(run_dir)]


def results(result: EchoResult) -> list[ResultGroup]:
    """The share of prompts answered the same twice."""
    return [ResultGroup("echo", result.model, None,
                        {"share": result.share, "identical": result.identical,
                         "prompts": result.prompts})]


ECHO_ROWS = RunRows(rows=rows, results=results)
