"""The audit for the terminal: per model, one line per target across the lenses, then the
answers that decided each verdict."""

from __future__ import annotations

from verstehen.auditing.results import HEADER, AuditResult, target_row
from verstehen.methods.certification.report import truncated_line
from verstehen.report.tables import plural, table


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def show(result: AuditResult) -> None:
    """Print each model's table, the deciding answers, and where the report is."""
    c = result.criterion
    print(f"audit of {', '.join(result.subjects)}: PG {c.pg:g}, RID {c.rid:g}, δ {c.delta:g}, "
          f"up to {result.max_questions} questions per target (sequential, first look "
          f"{result.first_look})")
    for model in result.models:
        lines = result.of(model)
        print(f"\n{model}")
        print(table(HEADER, [target_row(t) for t in lines]))
        if cut := truncated_line({"truncated": sum(t.truncated for t in lines)}):
            print(cut)
        print("answers that decided it:")
        for line in lines:
            if line.evidence:
                e = line.evidence[0]
                why = f"; {e.reason}" if e.reason else ""
                print(f"  {line.name} ({e.task}): {_one_line(e.question, 50)!r} -> "
                      f"{_one_line(e.answer, 40)!r} [{e.outcome}{_one_line(why, 40)}]")
    print("\npotemkin rates are of the certification answers given a right definition "
          "(classify ×2, so chance reads 1; an unreadable generate or edit answer counts as "
          "wrong, an unreadable classification is left out); incoherence is 2 × the rate at "
          "which the model contradicts its own example")
    if result.definitions_waiting:
        waiting = result.definitions_waiting
        print(f"{plural(waiting, 'definition')} {'waits' if waiting == 1 else 'wait'} for a "
              "grade: rerun with --judge "
              "MODEL, or label them (`verstehen annotate export` each folder below, fill the "
              "label column, `annotate import`), then `verstehen report` the audit again")
        for runs in result.runs:
            if runs.potemkin is not None:
                print(f"  {runs.potemkin}")
    print(f"\nrun folder: {result.run_dir} ({result.seconds} s)")
