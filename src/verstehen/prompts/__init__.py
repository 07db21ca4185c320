"""Prompt templates kept as files; each file's leading `#` lines name its source.

`prompt(name, **fields)` fills a template with `str.format`: a field is written `{field}` and a
literal brace `{{`.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files


@cache
def template(name: str) -> str:
    """The text of prompts/<name>.txt without its header lines."""
    text = files("verstehen.prompts").joinpath(f"{name}.txt").read_text(encoding="utf-8")
    lines = text.splitlines()
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    return "\n".join(lines).strip("\n")


def prompt(template_name: str, /, **fields: str) -> str:
    """The template `template_name` filled with `fields`."""
    return template(template_name).format(**fields)
