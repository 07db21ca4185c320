"""Shared imagination (Zhou et al.) as `verstehen` knows it: `verstehen imagine` and the run
folders of `imagine generate` and `imagine answer`."""

from __future__ import annotations

from verstehen.methods.contract import Method, RunKind
from verstehen.methods.imagination import html
from verstehen.methods.imagination.api import imagine_answer, imagine_generate
from verstehen.methods.imagination.cli import ANALYZE, MATRIX
from verstehen.methods.imagination.options import (
    ImagineAnswerOptions,
    ImagineGenerateOptions,
    imagine_answer_run,
    imagine_generate_run,
)
from verstehen.methods.imagination.records import (
    AnswerConfig,
    AnswerRunRecord,
    GenerateConfig,
    QuestionRecord,
)
from verstehen.methods.imagination.results import ImagineAnswerResult, ImagineGenerateResult
from verstehen.methods.imagination.rows import ANSWER_ROWS, GENERATE_ROWS
from verstehen.text.tables import plural

GENERATE = RunKind(
    words=("imagine", "generate"), result=ImagineGenerateResult, section=html.generate_section,
    headline=lambda r: f"{plural(r.kept, 'question')} kept",
    options=ImagineGenerateOptions, entry=imagine_generate_run, api=imagine_generate,
    help="a question model writes imaginary multiple-choice questions", rows=GENERATE_ROWS,
    records=QuestionRecord, config=GenerateConfig,
    example="verstehen.methods.imagination.example:generate_example")
ANSWER = RunKind(
    words=("imagine", "answer"), result=ImagineAnswerResult, section=html.answer_section,
    compare=html.compare, headline=lambda r: f"{len(r.matrix)} (QM, AM) cells",
    options=ImagineAnswerOptions, entry=imagine_answer_run, api=imagine_answer,
    help="answer models answer the questions; QM x AM rates", rows=ANSWER_ROWS,
    records=AnswerRunRecord, config=AnswerConfig,
    example="verstehen.methods.imagination.example:answer_example")
METHOD = Method("imagination", (GENERATE, ANSWER), help_place=80, own=(MATRIX, ANALYZE), groups={
    "imagine": "shared imagination: models answer each other's questions about made-up concepts "
               "(Zhou et al.)"})
