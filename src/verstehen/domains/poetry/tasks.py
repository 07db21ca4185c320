"""The poetry concepts' use tasks, by catalog key (prompts and grading: `task_base`)."""

from __future__ import annotations

from verstehen.domains.base import ConceptTasks
from verstehen.domains.poetry.tasks_forms import (
    Anapest,
    Haiku,
    IambicPentameter,
    ShakespeareanSonnet,
)
from verstehen.domains.poetry.tasks_pairs import PerfectRhyme, SlantRhyme

POETRY_TASKS: dict[str, ConceptTasks] = {
    t.key: t
    for t in (Haiku(), ShakespeareanSonnet(), SlantRhyme(), Anapest(), PerfectRhyme(),
              IambicPentameter())
}
