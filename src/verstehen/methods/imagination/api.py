"""Shared imagination from Python: `imagine_generate()` (a question model invents questions),
`imagine_answer()` (answer models answer them), `imagine_matrix()` and `imagine_analyze()`
(read run folders).

The two that call models are synchronous (they work inside a notebook's running loop too) and
have `_async` twins; their parameters are declared in options.py, and they run the entry
points the CLI runs, so their run folders are the same as `verstehen imagine generate|answer`
makes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from verstehen.methods.imagination.analyze import analyze_runs, pool_matrix
from verstehen.methods.imagination.options import (
    ImagineAnswerOptions,
    ImagineGenerateOptions,
    RunFolder,
    imagine_answer_run,
    imagine_generate_run,
    run_folders,
)
from verstehen.methods.imagination.results import ImagineAnalyzeResult, ImagineMatrixResult
from verstehen.methods.options import api_functions

__all__ = ["RunFolder", "imagine_analyze", "imagine_answer", "imagine_answer_async",
           "imagine_generate", "imagine_generate_async", "imagine_matrix", "run_folders"]

imagine_generate_async, imagine_generate = api_functions(
    ImagineGenerateOptions, imagine_generate_run, "imagine_generate")
imagine_answer_async, imagine_answer = api_functions(
    ImagineAnswerOptions, imagine_answer_run, "imagine_answer")


def imagine_matrix(runs: RunFolder | Sequence[RunFolder], *,
                   out: Path | str | None = None) -> ImagineMatrixResult:
    """Answer runs pooled into one QM x AM grid; matrix.csv and matrix.png into `out`
    (default: a new folder under the runs folder; the runs are only read)."""
    return pool_matrix(run_folders(runs), None if out is None else Path(out))


def imagine_analyze(runs: RunFolder | Sequence[RunFolder], *, similarity: str = "tfidf",
                    out: Path | str | None = None) -> ImagineAnalyzeResult:
    """Length ranks, rates by length and position, fictionality and question similarity
    (tfidf, embeddings or none) of generate and answer runs; length-ranks.png into `out`."""
    return analyze_runs(run_folders(runs), similarity=similarity,
                        out=None if out is None else Path(out))
