"""Prompt templates kept as files beside the method that uses them; each file's leading `#`
lines name its source.

`prompt("potemkin/define", **fields)` reads `methods/potemkin/prompts/define.txt` and fills it
with `str.format`: a field is written `{field}` and a literal brace `{{`.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files


@cache
def template(name: str) -> str:
    """The text of template `method/name` without its header lines."""
    method, _, stem = name.partition("/")
    path = files(f"verstehen.methods.{method}").joinpath("prompts", f"{stem}.txt")
    lines = path.read_text(encoding="utf-8").splitlines()
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    return "\n".join(lines).strip("\n")


def prompt(template_name: str, /, **fields: str) -> str:
    """The template `template_name` filled with `fields`."""
    return template(template_name).format(**fields)
