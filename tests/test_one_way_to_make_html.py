"""One way to make HTML: every piece of HTML or SVG the package writes is made by
`verstehen/report/markup.py`, whose elements escape the text they are given, read from the
source (no module is imported).

Outside the builder, no module writes markup by hand: a string literal holding a tag (`<td`,
`</a>`, `<!DOCTYPE`) is never in an f-string with a value, a `+` with a value, a `%` or a
`.format`, a `.join` separator, a `.replace`; nothing makes an `Html` or touches its text;
`trusted()` is given literals only; and no module escapes HTML itself (`html.escape`,
MarkupSafe, Jinja).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from verstehen.report.markup import Html, el, trusted

SRC = Path(__file__).resolve().parents[1] / "src" / "verstehen"
BUILDER = SRC / "report" / "markup.py"
ALLOWED = {BUILDER}  # the builder itself: the one place markup is written as text
TAGS = ("html|head|body|title|meta|style|script|link|base|header|footer|main|nav|section|"
        "article|aside|h1|h2|h3|h4|h5|h6|p|div|span|a|b|i|u|s|em|strong|small|code|pre|br|hr|"
        "img|figure|figcaption|table|thead|tbody|tfoot|tr|td|th|caption|colgroup|col|ul|ol|"
        "li|dl|dt|dd|details|summary|dialog|button|form|input|textarea|select|option|label|"
        "iframe|frame|object|embed|param|svg|g|text|tspan|line|rect|circle|ellipse|path|"
        "polygon|polyline|defs|use|desc|noscript|template|sup|sub|abbr|q|blockquote|mark|"
        "time|video|audio|source|canvas|foreignobject|math")
# a tag, but not a regular expression's group (`(?P<name>`) or a slot in a message (`mcq:<path>`)
MARKUP = re.compile(r"(?<!\?P)(?<!:)<\s*/?\s*(?:" + TAGS + r")(?=[\s/>]|$)"
                    r"|<!DOCTYPE|<!--", re.IGNORECASE)
ESCAPERS = {"html", "markupsafe", "jinja2", "xml.sax.saxutils"}


def markup_in(node: ast.AST) -> bool:
    """A string literal (or the literal parts of an f-string) holding a tag."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return bool(MARKUP.search(node.value))
    if isinstance(node, ast.JoinedStr):
        return any(markup_in(part) for part in node.values)
    return False


def _added(node: ast.AST) -> list[ast.AST]:
    """The operands of a chain of `+`."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _added(node.left) + _added(node.right)
    return [node]


def _literal_names(tree: ast.Module) -> set[str]:
    """Module-level names bound once to a string literal (the page's CSS, its script)."""
    bound: dict[str, list[ast.AST]] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    bound.setdefault(target.id, []).append(statement.value)
    return {name for name, values in bound.items() if len(values) == 1
            and isinstance(values[0], ast.Constant) and isinstance(values[0].value, str)}


def markup_problems(source: str, where: str = "<snippet>") -> list[str]:
    """Each place in `source` that writes markup by hand, one line each ("FILE:LINE: what")."""
    tree = ast.parse(source)
    literals = _literal_names(tree)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.JoinedStr) and markup_in(node) and any(
                isinstance(part, ast.FormattedValue) for part in node.values):
            found.append((line, "an f-string writes markup"))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            operands = _added(node)
            if any(markup_in(o) for o in operands) and not all(
                    isinstance(o, ast.Constant) for o in operands):
                found.append((line, "a + writes markup"))
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and markup_in(
                node.value):
            found.append((line, "a += writes markup"))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and markup_in(
                node.left):
            found.append((line, "a % writes markup"))
        elif isinstance(node, ast.Call):
            found += [(line, what) for what in _call_problems(node, literals)]
        elif isinstance(node, ast.Name) and node.id == "_MINT":
            found.append((line, "the builder's key is used"))
        elif isinstance(node, ast.Attribute) and node.attr == "_markup":
            found.append((line, "an Html's text is reached into"))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [
                alias.name for alias in node.names]
            if any(name in ESCAPERS or name.split(".")[0] in {"markupsafe", "jinja2"}
                   for name in names):
                found.append((line, f"HTML escaped outside the builder ({', '.join(names)})"))
    return [f"{where}:{line}: {what}" for line, what in sorted(set(found))]


def _call_problems(node: ast.Call, literals: set[str]) -> list[str]:
    func = node.func
    out = []
    if isinstance(func, ast.Attribute) and markup_in(func.value) and func.attr in (
            "format", "format_map", "join"):
        out.append(f"a .{func.attr} writes markup")
    if isinstance(func, ast.Attribute) and func.attr == "replace" and any(
            markup_in(arg) for arg in node.args):
        out.append("a .replace writes markup")
    name = func.id if isinstance(func, ast.Name) else (
        func.attr if isinstance(func, ast.Attribute) else "")
    if name == "Html":
        out.append("an Html is made outside the builder")
    if name == "trusted" and not (len(node.args) == 1 and not node.keywords
                                  and _literal(node.args[0], literals)):
        out.append("trusted() is given something other than a literal")
    return out


def _literal(node: ast.AST, literals: set[str]) -> bool:
    """A string literal, or a module-level name bound once to one."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    return isinstance(node, ast.Name) and node.id in literals


def test_no_module_writes_markup_by_hand() -> None:
    problems = [problem for path in sorted(SRC.rglob("*.py")) if path not in ALLOWED
                for problem in markup_problems(path.read_text(encoding="utf-8"),
                                               str(path.relative_to(SRC)))]
    assert problems == []


def test_the_allow_list_is_the_builder_only() -> None:
    assert {BUILDER} == ALLOWED and BUILDER.is_file()
    # the builder does write markup as text: were it not allowed, the check would say so
    assert markup_problems(BUILDER.read_text(encoding="utf-8"))


@pytest.mark.parametrize("snippet", [
    'def cell(x):\n    return f"<td>{x}</td>"',
    'def cell(x):\n    return "<td>" + x + "</td>"',
    'def cell(x):\n    out = ""\n    out += "<td>"\n    return out',
    'def cell(x):\n    return "<td>%s</td>" % x',
    'def cell(x):\n    return "<td>{}</td>".format(x)',
    'def cells(xs):\n    return "<br>".join(xs)',
    'def tip(label, name):\n    return label.replace("</text>", "<title>" + name)',
    'def page(body):\n    return f"<!DOCTYPE html><html>{body}</html>"',
    'def svg(x):\n    return f\'<circle cx="{x}"/>\'',
    'def shout(x):\n    return f"<SCRIPT>{x}</SCRIPT>"',
    'from verstehen.report.markup import Html\nmade = Html("<b>x</b>", None)',
    'from verstehen.report import markup\nmade = markup.Html("<b>x</b>", markup._MINT)',
    'def raw(h):\n    return h._markup',
    'from verstehen.report.markup import trusted\ndef raw(x):\n    return trusted(x)',
    'from verstehen.report.markup import trusted\nCSS = "a{}"\nCSS = input()\n'
    'style = trusted(CSS)',
    'import html\nsafe = html.escape("x")',
    'from markupsafe import Markup',
    'import jinja2',
])
def test_markup_written_by_hand_is_found(snippet: str) -> None:
    assert markup_problems(snippet)


def test_a_real_module_with_an_html_f_string_added_fails() -> None:
    """The check finds a deliberate lapse in a module that passes it now."""
    path = SRC / "auditing" / "html.py"
    source = path.read_text(encoding="utf-8")
    assert markup_problems(source) == []
    lapse = source + '\n\ndef _cell(name: str) -> str:\n    return f"<td>{name}</td>"\n'
    assert markup_problems(lapse, "auditing/html.py") == [
        f"auditing/html.py:{len(lapse.splitlines())}: an f-string writes markup"]


def test_text_that_only_looks_like_markup_is_not_flagged() -> None:
    """Prompts and messages may name `<OUTPUT>`, `<think>` or `mcq:<path>`; patterns have
    groups (`(?P<s>`) and lookbehinds (`(?<!`)."""
    assert markup_problems('def ask(x):\n    return f"write the flag <OUTPUT> then {x}"') == []
    assert markup_problems('def ask(x):\n    return f"ends inside <think> {x}"') == []
    assert markup_problems('def say(x):\n    return f"{x}: only for mcq:<path>"') == []
    assert markup_problems('import re\nWORD = "w"\n'
                           'FOUND = re.compile(rf"(?<!x)(?P<s>{WORD})")') == []
    assert markup_problems('CSS = "a{}"\nfrom verstehen.report.markup import trusted\n'
                           'style = trusted(CSS)\nother = trusted("b{}")') == []


def test_the_builder_refuses_what_would_be_markup() -> None:
    with pytest.raises(TypeError):
        Html("<b>x</b>", object())
    with pytest.raises(TypeError):
        _ = f"{el('b', 'x')}"  # an f-string would escape it again
    with pytest.raises(TypeError):
        _ = el("b", "x") + "<i>"  # type: ignore[operator]
    with pytest.raises(TypeError):
        el("script", "alert(1)")
    with pytest.raises(TypeError):
        el("SCRIPT", "alert(1)")
    for keywords in ({"onclick": "x"}, {"onClick": "x"}, {"href": "javascript:alert(1)"},
                     {"src": "https://example.org/x.png"}, {"bad name": "x"}):
        with pytest.raises(ValueError):
            el("a", "x", **keywords)
    assert str(el("a", "x", href="#records")) == '<a href="#records">x</a>'
    assert str(trusted("<b>constant</b>")) == "<b>constant</b>"


def test_text_and_attributes_are_escaped() -> None:
    made = el("td", '<script>alert("x")</script> & \u202eevil', title='"><img onerror=x>')
    assert str(made) == ('<td title="&quot;&gt;&lt;img onerror=x&gt;">&lt;script&gt;alert('
                         '&quot;x&quot;)&lt;/script&gt; &amp; \\u202eevil</td>')
