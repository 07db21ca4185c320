"""A run folder's rows and results as tables: pandas data frames (`records_frame`,
`results_frame`, `to_frame`, pandas being the `frames` extra) and the plain rows the CSV and
Parquet writers share.

The records table has one row per question asked, with the columns every method has, then the
method's own (`metadata`, named in the docstring of that method's `rows` function):

    id      the question's id in its run folder (for an audit: its lens folder's name first)
    model   the model asked (None where the record does not name it)
    input   the prompt; reply: the model's reply (None: the call failed)
    target  the answer wanted (None: none); score: 0 to 1 (None: not graded)
    grade   the grade in words (correct, wrong, unparsed, ...)

    certify              kind (answer, rephrase, explanation), scope, question_id, family,
                         phrasing, parsed, reason, truncated, cached, error; a program's
                         offered, program_ok, questions, ridiculous
    potemkin run         concept, domain, task (define, classify, generate, edit), source,
                         outcome, keystone, judge, reason, cached, error
    potemkin incoherence concept, domain, want, index, classify_prompt, classify_reply, said,
                         mismatch, checker, check_reason, error
    potemkin selfjudge   kind, question_id, outcome, concept, altered, judged_altered,
                         unchanged
    imagine generate     question_id, qtype, content, topic, index, position, slot, try, stem,
                         choices, reason, context
    imagine answer       kind (answer, fiction), question_id, qm, am, method, variant, qtype,
                         content, topic, position, chosen, correct_rank, judge_score, error
    consistency          kind (anchor, fact), method, chosen, concepts, facts, relation, c1,
                         c2, positive, error
    audit                lens, lens_run, then the columns of each lens (certify, potemkin
                         run, potemkin incoherence)

A list or mapping in a metadata column is written as JSON text. The results table has one row
per result group (a scope's verdict, a task's potemkin rate, a matrix cell, ...): `result`,
its name, then each value by name (the names are listed in each `results` function).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from verstehen.export.extras import need
from verstehen.export.kinds import folder_rows
from verstehen.export.sample import ResultGroup, SampleRow

BASE_COLUMNS = ("id", "model", "input", "reply", "target", "score", "grade")


def record_table(rows: Sequence[SampleRow]) -> tuple[list[str], list[list[Any]]]:
    """The records table's columns and rows: the base columns, then every metadata name in
    the order first met (a row without one has None there)."""
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row.metadata))
    clash = sorted(set(names) & set(BASE_COLUMNS))
    if clash:
        raise ValueError(f"metadata may not be named as a base column: {clash}")
    columns = [*BASE_COLUMNS, *names]
    table = [[row.id, row.model, row.input, row.reply, row.target, row.score, row.grade,
              *(cell(row.metadata.get(name)) for name in names)] for row in rows]
    return columns, table


def result_table(groups: Sequence[ResultGroup]) -> tuple[list[str], list[list[Any]]]:
    """The results table's columns and rows: `result`, then every value name in the order
    first met (a group without one has None there)."""
    names: dict[str, None] = {}
    for group in groups:
        names.update(dict.fromkeys(group.values))
    columns = ["result", *names]
    return columns, [[g.name, *(g.values.get(n) for n in names)] for g in groups]


def cell(value: Any) -> Any:
    """A metadata value as one table cell: a list or mapping as JSON text."""
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, ensure_ascii=False)
    return value


def records_frame(run_dir: Path | str) -> Any:  # a pandas.DataFrame (pandas ships no types)
    """A finished run folder's questions asked as a pandas DataFrame, one row each (columns:
    see this module's docstring); needs the `frames` extra."""
    pd = need("pandas", "frames", "a data frame")
    columns, table = record_table(folder_rows(run_dir))
    return pd.DataFrame(table, columns=columns)


def to_frame(result: Any) -> Any:  # a pandas.DataFrame (pandas ships no types)
    """The questions a typed result rests on, as `records_frame` of its run folder (what the
    lead attaches as `result.to_frame()`)."""
    return records_frame(result.run_dir)
