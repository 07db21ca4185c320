"""The one way verstehen writes HTML and SVG: elements made by functions that escape every
piece of text they are given, so that data (a model's name, a reply, a value of a run folder)
can only ever be text on the page, never markup.

`Html` is markup this module made; nothing else makes one from a string. `el(tag, *children,
**attributes)` makes an element: a `str` (or number) child and every attribute value are
escaped, with their control and format characters shown as escapes (`\\u202e`, see
`text/terminal.py`); an `Html` child goes in as it is. Attribute names come from the keywords
(`class_` is `class`, `data_g` is `data-g`); an event handler (`on...`) is refused, and a link
(`href`, `src`) may only point into the page (`#...`) or be a PNG data URI. `script` and
`style` take `Html` only. `concat` and `join` put pieces together; `Html + Html` is `Html`,
`Html + str` a TypeError, and an `Html` in an f-string a TypeError too (it would come out as
text, escaped a second time).

`trusted` is the one door for a constant fragment (the page's CSS and script):
`tests/test_one_way_to_make_html.py` checks that it is only given literals, and that no other
module writes markup in an f-string, a `+`, a `%` or a `.format`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, TypeAlias

from verstehen.text.terminal import shown

if TYPE_CHECKING:  # typing.LiteralString is Python 3.11+; verstehen runs on 3.10 too
    from typing import LiteralString

_MINT = object()  # the key only this module holds
HTML_SPACE = "\n\r\t"  # kept in text: HTML shows them as white space (lines in a <pre>)
VOID = frozenset({"br", "hr", "img", "input", "link", "meta", "wbr"})
SVG_EMPTY = frozenset({"circle", "ellipse", "line", "path", "polygon", "polyline", "rect"})
RAW_TEXT = frozenset({"script", "style"})  # their content is not parsed as HTML: Html only
URL_ATTRIBUTES = frozenset({"href", "src", "action", "formaction", "xlink:href", "poster"})
PAGE_URL = re.compile(r"#[A-Za-z0-9_.:-]*|data:image/png;base64,[A-Za-z0-9+/=]*")
NAME = re.compile(r"[A-Za-z][A-Za-z0-9-]*")
BASE64 = re.compile(r"[A-Za-z0-9+/=]*")


class Html:
    """A piece of markup this module made: wherever data went in, it was escaped."""

    __slots__ = ("_markup",)

    def __init__(self, text: str, mint: object) -> None:
        if mint is not _MINT:
            raise TypeError("Html is made by verstehen.report.markup's functions, never from "
                            "a string")
        self._markup = text

    def __str__(self) -> str:
        return self._markup

    def __html__(self) -> str:
        """The markup (the protocol Jinja and MarkupSafe read)."""
        return self._markup

    def __repr__(self) -> str:
        return f"Html({self._markup!r})"

    def __format__(self, spec: str) -> str:
        raise TypeError("Html in an f-string or format() would be escaped again: put pieces "
                        "together with concat() or el()")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Html) and other._markup == self._markup

    def __hash__(self) -> int:
        return hash(self._markup)

    def __bool__(self) -> bool:
        return bool(self._markup)

    def __contains__(self, text: str) -> bool:
        return text in self._markup

    def __add__(self, other: Html) -> Html:
        if not isinstance(other, Html):
            return NotImplemented
        return Html(self._markup + other._markup, _MINT)


# what an element holds: markup, text (escaped), a number, nothing, or a sequence of these
Content: TypeAlias = "Html | str | int | float | Iterable[Content] | None"
Value: TypeAlias = "str | int | float | None"


def escape(text: object) -> Html:
    """`text` as markup that shows it: `&<>"'` escaped, control and format characters shown
    as escapes (HTML's white space kept)."""
    return Html(html.escape(shown(str(text), HTML_SPACE), quote=True), _MINT)


def _pieces(content: Content) -> Iterable[str]:
    if content is None:
        return
    if isinstance(content, Html):
        yield content._markup
    elif isinstance(content, (str, int, float)):
        yield escape(content)._markup
    else:
        for part in content:
            yield from _pieces(part)


def concat(*parts: Content) -> Html:
    """The parts one after the other (text escaped)."""
    return Html("".join(_pieces(parts)), _MINT)


def join(separator: Html | str, parts: Iterable[Content]) -> Html:
    """The parts with `separator` between each two (text escaped)."""
    between = separator._markup if isinstance(separator, Html) else escape(separator)._markup
    return Html(between.join("".join(_pieces(part)) for part in parts), _MINT)


def attribute_name(keyword: str) -> str:
    """The attribute a keyword names: a trailing `_` dropped, other `_` as `-`; an event
    handler or a name that is not one is a ValueError."""
    name = keyword.rstrip("_").replace("_", "-")
    if not NAME.fullmatch(name) or name.lower().startswith("on"):
        raise ValueError(f"not an attribute the report writes: {keyword!r}")
    return name


def attributes(values: dict[str, Value]) -> str:
    """` name="value"` for each keyword (None left out), each value escaped."""
    out = []
    for keyword, value in values.items():
        if value is None:
            continue
        name = attribute_name(keyword)
        text = str(value)
        if name.lower() in URL_ATTRIBUTES and not PAGE_URL.fullmatch(text):
            raise ValueError(f"{name} may point into the page or be a PNG data URI, not "
                             f"{text[:40]!r}")
        out.append(f' {name}="{escape(text)._markup}"')
    return "".join(out)


def el(tag: str, *children: Content, **values: Value) -> Html:
    """The element `tag` around `children` (text escaped), with attributes from keywords."""
    if not NAME.fullmatch(tag):
        raise ValueError(f"not a tag: {tag!r}")
    inner = "".join(_pieces(children))
    if tag.lower() in RAW_TEXT and not all(isinstance(c, Html) for c in children):
        raise TypeError(f"<{tag}> holds Html only (trusted(...) or base64_script)")
    if tag.lower() in VOID:
        if inner:
            raise ValueError(f"<{tag}> holds nothing")
        return Html(f"<{tag}{attributes(values)}>", _MINT)
    if tag in SVG_EMPTY and not inner:
        return Html(f"<{tag}{attributes(values)}/>", _MINT)
    return Html(f"<{tag}{attributes(values)}>{inner}</{tag}>", _MINT)


def base64_script(payload: str, **values: Value) -> Html:
    """A `<script type="application/octet-stream">` holding base64 data (checked to be only
    that), which the page's script decodes."""
    if not BASE64.fullmatch(payload):
        raise ValueError("the payload is not base64")
    return Html(f'<script type="application/octet-stream"{attributes(values)}>{payload}'
                "</script>", _MINT)


def trusted(fragment: LiteralString) -> Html:
    """A constant fragment of verstehen's own (the page's CSS, its script) as markup: never
    data (tests/test_one_way_to_make_html.py checks every call gives a literal)."""
    return Html(fragment, _MINT)


def document(root: Html) -> str:
    """A whole HTML document: the doctype, then `root` (its `<html>` element)."""
    return "<!DOCTYPE html>" + root._markup
