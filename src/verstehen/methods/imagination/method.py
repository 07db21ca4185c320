"""Shared imagination (Zhou et al.) as `verstehen` knows it: `verstehen imagine` and the run
folders of `imagine generate` and `imagine answer`."""

from __future__ import annotations

from verstehen.methods.contract import Method, RunKind
from verstehen.methods.imagination import html
from verstehen.methods.imagination.api import imagine_answer, imagine_generate
from verstehen.methods.imagination.cli import add_parsers
from verstehen.methods.imagination.options import ImagineAnswerOptions, ImagineGenerateOptions
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
    options=ImagineGenerateOptions, api=imagine_generate, rows=GENERATE_ROWS,
    records=QuestionRecord, config=GenerateConfig)
ANSWER = RunKind(
    words=("imagine", "answer"), result=ImagineAnswerResult, section=html.answer_section,
    compare=html.compare, headline=lambda r: f"{len(r.matrix)} (QM, AM) cells",
    options=ImagineAnswerOptions, api=imagine_answer, rows=ANSWER_ROWS,
    records=AnswerRunRecord, config=AnswerConfig)
METHOD = Method("imagination", add_parsers, (GENERATE, ANSWER), help_place=80)
