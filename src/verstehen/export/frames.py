"""A run folder's rows and results as tables: pandas data frames (`records_frame`,
`results_frame`, `to_frame`, pandas being the `frames` extra) and the plain rows the CSV and
Parquet writers share.

Every table of every run kind has the same first columns, with one meaning everywhere, so the
tables of several runs concatenate and join (by `run_id`, `model`, `scope`):

    run_id  the run's id (run.json's; for an audit, the audit's)
    id      unique across runs: the run's id, "/", then `item` (results: `result`)
    model   the model asked, whose answers these are (results: the model the group is about;
            None where a group pools the run's models)
    scope   the key of the scope or concept asked about (a certify scope, a Potemkin concept,
            an audit's target; what `certify --scope` takes); None where the run asks about
            none (imagine, consistency, potemkin selfjudge) or a group pools them

The records table has one row per question asked: those columns, then

    item    the question's id in its run folder (for an audit: its lens folder's name first)
    input   the prompt; reply: the model's reply (None: the call failed)
    expected  the answer expected (None: none); score: 0 to 1 (None: not graded)
    grade   the grade in words (correct, wrong, unparsed, ...)

then the method's own (`metadata`, named in the docstring of that method's `rows` function):

    certify              kind (answer, rephrase, explanation), question_id, family,
                         phrasing, parsed, reason, truncated, cached, error; a program's
                         offered, program_ok, questions, ridiculous
    potemkin run         domain, task (define, classify, generate, edit), source, outcome,
                         keystone, judge, reason, cached, error
    potemkin incoherence domain, want, index, classify_prompt, classify_reply, said,
                         mismatch, checker, check_reason, error
    potemkin selfjudge   kind, question_id, outcome, concept (the concept the model named),
                         altered, judged_altered, unchanged
    imagine generate     question_id, qtype, content, topic, index, position, slot, try, stem,
                         choices, reason, context
    imagine answer       kind (answer, fiction), question_id, qm, am, method, variant, qtype,
                         content, topic, position, chosen, correct_rank, judge_score, error
    consistency          kind (anchor, fact), method, chosen, concepts, facts, relation, c1,
                         c2, positive, error
    audit                lens, lens_run, then the columns of each lens (certify, potemkin
                         run, potemkin incoherence)

A list or mapping in a metadata column is written as JSON text. The results table has one row
per result group (a scope's verdict, a task's potemkin rate, a matrix cell, ...): those
columns with `result`, the group's name in its run, then each value by name (the names are
listed in each `results` function). A decision is the enum's value (`understands`,
`does_not_understand`, `inconclusive`; None: no verdict), as summary.json and `--fail-on` spell
it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from verstehen.export.extras import need
from verstehen.export.kinds import folder_rows
from verstehen.rows import ResultGroup, SampleRow

KEY_COLUMNS = ("run_id", "id")
BASE_COLUMNS = (*KEY_COLUMNS, "item", "model", "scope", "input", "reply", "expected", "score",
                "grade")
RESULT_COLUMNS = (*KEY_COLUMNS, "result", "model", "scope")
# names no table may use again: `target` meant the expected answer in records and the scope in
# an audit's results (now `expected` and `scope`)
RETIRED = ("target",)


def record_table(run_id: str, rows: Sequence[SampleRow]) -> tuple[list[str], list[list[Any]]]:
    """The records table of run `run_id`: the base columns, then every metadata name in the
    order first met (a row without one has None there)."""
    names = _names(row.metadata for row in rows)
    _refuse_clash(names, (*BASE_COLUMNS, *RETIRED), "metadata")
    columns = [*BASE_COLUMNS, *names]
    table = [[run_id, f"{run_id}/{row.id}", row.id, row.model, row.scope, row.input, row.reply,
              row.expected, row.score, row.grade,
              *(cell(row.metadata.get(name)) for name in names)] for row in rows]
    return columns, table


def result_table(run_id: str, groups: Sequence[ResultGroup]
                 ) -> tuple[list[str], list[list[Any]]]:
    """The results table of run `run_id`: the key columns, `result`, `model`, `scope`, then
    every value name in the order first met (a group without one has None there)."""
    names = _names(group.values for group in groups)
    _refuse_clash(names, (*RESULT_COLUMNS, *RETIRED), "a result's value")
    columns = [*RESULT_COLUMNS, *names]
    return columns, [[run_id, f"{run_id}/{g.name}", g.name, g.model, g.scope,
                      *(g.values.get(n) for n in names)] for g in groups]


def _names(mappings: Iterable[Mapping[str, Any]]) -> list[str]:
    """Every key of the mappings, in the order first met."""
    names: dict[str, None] = {}
    for mapping in mappings:
        names.update(dict.fromkeys(mapping))
    return list(names)


def _refuse_clash(names: Sequence[str], columns: Sequence[str], what: str) -> None:
    """ValueError when a method's own name is one of the columns every table has (or a
    retired one)."""
    clash = sorted(set(names) & set(columns))
    if clash:
        raise ValueError(f"{what} may not be named as a base or retired column: {clash}")


def cell(value: Any) -> Any:
    """A metadata value as one table cell: a list or mapping as JSON text."""
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, ensure_ascii=False)
    return value


def records_frame(run_dir: Path | str) -> Any:  # a pandas.DataFrame (pandas ships no types)
    """A finished run folder's questions asked as a pandas DataFrame, one row each (columns:
    see this module's docstring); needs the `frames` extra."""
    pd = need("pandas", "frames", "a data frame")
    run_id, rows = folder_rows(run_dir)
    columns, table = record_table(run_id, rows)
    return pd.DataFrame(table, columns=columns)


def to_frame(result: Any) -> Any:  # a pandas.DataFrame (pandas ships no types)
    """The questions a typed result rests on, as `records_frame` of its run folder (what the
    lead attaches as `result.to_frame()`)."""
    return records_frame(result.run_dir)
