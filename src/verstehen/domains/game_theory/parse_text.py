"""Payoff-matrix formats b (tables, incl. LaTeX), c (plain lines), d (outcome statements)
and e (pairs row by row in prose) for `parse.py`."""

from __future__ import annotations

import math
import re
from functools import partial

from verstehen.domains.game_theory.game import Game
from verstehen.domains.game_theory.parse_common import (
    _NUM,
    _TABLE_SUM,
    _build,
    _Candidate,
    _candidate,
    _fraction,
    _Malformed,
)
from verstehen.text.tables import plural

# ---------------------------------------------------------------- b. tables

_LATEX_CMD_RE = re.compile(
    r"\\(?:text|mathbf|textbf|mathrm|boldsymbol|bm|underline|emph|textit|mathit|mbox)\s*"
    r"\{([^{}]*)\}"
)
_LATEX_FRAC_RE = re.compile(r"\\[dt]?frac\s*\{\s*([^{}]*?)\s*\}\s*\{\s*([^{}]*?)\s*\}")
_LATEX_SPACE_RE = re.compile(r"\\(?:[,;:! ]|q?quad\b)|\\(?:left|right|big|Big)\b")
_BRACKETS = {"(": ")", "[": "]", "⟨": "⟩", "{": "}"}


def _cell_text(raw: str) -> str:
    s = _LATEX_CMD_RE.sub(r"\1", raw)
    s = _LATEX_FRAC_RE.sub(r"\1/\2", s)
    s = _LATEX_SPACE_RE.sub(" ", s)
    s = re.sub(r"[*_`$]", "", s).replace("−", "-").strip()
    while len(s) >= 2 and _BRACKETS.get(s[0]) == s[-1]:
        s = s[1:-1].strip()
    return s


# a label before a payoff inside a cell: "A: -1", "Dolphin: 3", "P1 = 2"
_CELL_LABEL_RE = re.compile(r"^[A-Za-z][\w .'’-]{0,30}?\s*[:=]\s*")
_CELL_PAYOFF = rf"(?:{_TABLE_SUM}|{_NUM})"


def _side_pieces(s: str) -> list[str] | None:
    """The payoffs of one side of a cell ("(3, 2)", "A: 3, B: 2", "3+100, 2", "7, (3)")."""
    s = _cell_text(s)
    if not s:
        return None
    pieces = [_cell_text(_CELL_LABEL_RE.sub("", p.strip()))
              for p in re.split(r"\s*(?:[,;]|\\+)\s*", s)]
    if len(pieces) == 1 and re.fullmatch(rf"{_NUM}(?:\s+{_NUM})+", s):
        pieces = s.split()
    if all(re.fullmatch(_CELL_PAYOFF if len(pieces) > 1 else _NUM, p) for p in pieces):
        return pieces
    return None


_PLAYER_ONE_RE = re.compile(r"^(?:player\s*(?:1|one|a)|p1|row(?:\s*player)?)$", re.I)
_PLAYER_TWO_RE = re.compile(r"^(?:player\s*(?:2|two|b)|p2|col(?:umn)?(?:\s*player)?)$", re.I)


def _cell_labels(raw: str) -> tuple[str, ...]:
    """The labels a cell puts before its payoffs ("A: -1, B: +1" -> ("a", "b"))."""
    return tuple(m.group(1).strip().casefold()
                 for m in re.finditer(r"(?:^|[,;(])\s*[*_]*([A-Za-z][\w .'’-]{0,30}?)[*_]*\s*[:=]",
                                      _cell_text(raw)))


def _names(label: str, text: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(label)}(?![\w])", text, re.I) is not None


def _labels_name_player_two_first(cells: list[list[str]], row_names: str,
                                  column_names: str) -> bool:
    """Whether the cells label their payoffs with player 2's name first, so each pair must be
    turned round; raises _Malformed when cells label them in different orders."""
    found = {labels for row in cells for c in row if len(labels := _cell_labels(c)) == 2}
    if not found:
        return False
    if len(found) > 1:
        shown = " and ".join(f"{a}/{b}" for a, b in sorted(found))
        raise _Malformed(f"cells name their payoffs in different orders ({shown})")
    first, second = found.pop()
    if _PLAYER_ONE_RE.match(first) or _PLAYER_TWO_RE.match(second):
        return False
    if _PLAYER_TWO_RE.match(first) or _PLAYER_ONE_RE.match(second):
        return True
    rows_first, rows_second = _names(first, row_names), _names(second, row_names)
    cols_first, cols_second = _names(first, column_names), _names(second, column_names)
    return (rows_second and not rows_first) or (cols_first and not cols_second)


def _cell_pieces(raw: str) -> list[str] | None:
    """A table cell's payoffs ("(3, 2)" -> ["3", "2"]); None when it is not payoffs only. A
    cell worked out ("(2-5, 2-5) = (-3, -3)") is read at its result when every side agrees."""
    whole = _side_pieces(raw)
    if whole is not None or "=" not in raw:
        return whole
    sides = [_side_pieces(side) for side in raw.split("=")]
    if any(side is None for side in sides):
        return None
    last = sides[-1]
    assert last is not None
    if len(sides) > 1 and any(side is not None and (len(side) != len(last) or any(
            _fraction(a) != _fraction(b) for a, b in zip(side, last, strict=True)))
            for side in sides[:-1]):
        return None
    return last


def _grid(rows: list[list[str]], start: int, end: int, what: str,
          header_rows: int = 0) -> tuple[_Candidate | None, str | None]:
    """A candidate from a table's rows of raw cells, or (None, near-miss hint or None).

    The body starts at the first row from `header_rows` on (the rows above a markdown separator)
    with a number after its first cell. Leading label columns are dropped: a column with no
    numbers, or one numbering the rows 1, 2, ... A table counts only when some cell is a pair.
    """
    parsed = [[_cell_pieces(c) for c in row] for row in rows]
    body_at = next((k for k in range(header_rows, len(rows))
                    if any(p is not None for p in parsed[k][1:] or parsed[k])), None)
    slashed = [c for row in rows[header_rows:] for c in row[1:]
               if re.fullmatch(rf"{_NUM}\s*/\s*{_NUM}", _cell_text(c))]
    body = parsed[body_at:] if body_at is not None else []
    if not any(p is not None and len(p) >= 2 for row in body for p in row[1:] or row):
        if slashed:
            return None, (f"table cells like {slashed[0].strip()!r} are ambiguous (a fraction, "
                          "or two payoffs): write each cell as a pair such as (3, 2)")
        if body:
            return None, ("a table has one number per cell, expected pairs (player 1's payoff, "
                          "player 2's payoff) such as (3, 2)")
        return None, None
    body_raw = rows[body_at:]

    def label_column(column: list[list[str] | None]) -> bool:
        numbering = [[str(k)] for k in range(1, len(column) + 1)]
        return all(p is None for p in column) or column == numbering

    dropped = 0
    while all(len(row) > 1 for row in body) and label_column([row[0] for row in body]):
        body = [row[1:] for row in body]
        body_raw = [row[1:] for row in body_raw]
        dropped += 1
    row_names = " ".join(c for row in rows[body_at:] for c in row[:dropped])
    column_names = " ".join(c for row in rows[:body_at] for c in row)

    def make() -> Game:
        cells: list[list[list[str] | str]] = []
        for k, (row, raw) in enumerate(zip(body, body_raw, strict=True), 1):
            if all(p is None for p in row):
                raise _Malformed(f"table row {k} has no payoffs")
            cells.append([p if p is not None else r.strip()
                          for p, r in zip(row, raw, strict=True)])
        if _labels_name_player_two_first(body_raw, row_names, column_names):
            cells = [[c[::-1] if isinstance(c, list) else c for c in row] for row in cells]
        return _build(cells)

    return _candidate(start, end, 1, what, make), None


_TABLE_LINE_RE = re.compile(r"^[ \t]*(?:\|.*|[^|\n]*\|[^|\n]*\|.*)$", re.M)
_SEPARATOR_CELL_RE = re.compile(r"\s*:?-{2,}:?\s*|\s*")


def _tables(text: str) -> tuple[list[_Candidate], str | None]:
    """Markdown-table candidates, and a hint when a table held no pairs."""
    found: list[_Candidate] = []
    near = None
    lines = list(_TABLE_LINE_RE.finditer(text))
    blocks: list[list[re.Match[str]]] = []
    for m in lines:
        if blocks and text[blocks[-1][-1].end():m.start()] == "\n":
            blocks[-1].append(m)
        else:
            blocks.append([m])
    for block in blocks:
        rows: list[list[str]] = []
        header_rows = None
        for m in block:
            body = m.group().strip()
            body = body.removeprefix("|").removesuffix("|")
            cells = body.split("|")
            if all(_SEPARATOR_CELL_RE.fullmatch(c) for c in cells):
                if header_rows is None and any(c.strip() for c in cells):
                    header_rows = len(rows)
                continue
            rows.append(cells)
        if not rows:
            continue
        cand, hint = _grid(rows, block[0].start(), block[-1].end(), "table",
                           header_rows or 0)
        near = hint or near
        if cand:
            found.append(cand)
    return found, near


_LATEX_ENV_RE = re.compile(
    r"\\begin\{(?P<env>[pbvBV]?matrix|smallmatrix|array|tabular)\*?\}(?:\s*\{[^{}]*\})?"
    r"(?P<body>.*?)\\end\{(?P=env)\*?\}",
    re.S,
)


def _latex(text: str) -> tuple[list[_Candidate], str | None]:
    found: list[_Candidate] = []
    near = None
    for m in _LATEX_ENV_RE.finditer(text):
        body = re.sub(r"\\(?:hline|toprule|midrule|bottomrule)\b|\\cline\{[^}]*\}", "",
                      m.group("body"))
        body = re.sub(r"\\multicolumn\{[^}]*\}\{[^}]*\}\{([^{}]*)\}", r"\1", body)
        rows = [r.split("&") for r in re.split(r"\\\\", body) if r.strip()]
        if not rows:
            continue
        cand, hint = _grid(rows, m.start(), m.end(), "LaTeX matrix")
        near = hint or near
        if cand:
            found.append(cand)
    return found, near


# ---------------------------------------------------------------- c. plain lines

_PAIR = rf"[(\[]\s*{_NUM}(?:\s*[,;]\s*{_NUM})*\s*[)\]]"
_PAIR_RE = re.compile(rf"[(\[]\s*(?P<inner>{_NUM}(?:\s*[,;]\s*{_NUM})*)\s*[)\]]")
_LABEL = r"(?:[*_]*[A-Za-z][\w'’ ]{0,30}?[*_]*[ \t]*[:=]|[*_]*[A-Za-z][\w'’]{0,20}[*_]*(?=\s))"
_PLAIN_LINE_RE = re.compile(
    rf"^[ \t]*(?:[-*•][ \t]+)?(?:{_LABEL}[ \t]*)?\[?[ \t]*(?P<cells>{_PAIR}"
    rf"(?:[ \t]*[,;|]?[ \t]*{_PAIR})*)[ \t]*\]?[ \t]*[,;.]?[ \t]*$",
    re.M,
)


def _plain_lines(text: str) -> list[_Candidate]:
    found: list[_Candidate] = []
    blocks: list[list[re.Match[str]]] = []
    for m in _PLAIN_LINE_RE.finditer(text):
        if blocks and text[blocks[-1][-1].end():m.start()] == "\n":
            blocks[-1].append(m)
        else:
            blocks.append([m])
    for block in blocks:
        rows: list[list[list[str] | str]] = [
            [re.split(r"\s*[,;]\s*", c.group("inner")) for c in _PAIR_RE.finditer(m.group("cells"))]
            for m in block
        ]
        if len(rows) < 2 or max(len(r) for r in rows) < 2:
            continue
        found.append(_candidate(block[0].start(), block[-1].end(), 2, "lines of pairs",
                                partial(_build, rows)))
    return found


# ---------------------------------------------------------------- d. outcome statements

_ACTION = r"[*_\"'“‘]*[^\W\d][^(),\n]{0,40}?"
_OUTCOME_RE = re.compile(
    rf"\(\s*(?P<r>{_ACTION})\s*,\s*(?P<c>{_ACTION})\s*\)\s*"
    r"(?:leads?\s+to|gives?|yields?|results?\s+in|->|→|=>|⇒|:|=)\s*"
    r"(?:(?:the\s+)?payoffs?(?:\s+of)?\s*:?\s*)?"
    rf"\(\s*(?P<a>{_NUM})\s*,\s*(?P<b>{_NUM})\s*\)",
    re.I,
)
# an outcome in a list: "- **Hiking, Beach Day:** (-1, -1)", "1. Up, Left -> (3, 2)"
_OUTCOME_ITEM_RE = re.compile(
    rf"^[ \t]*(?:[-*•+]|\d+[.)])[ \t]+[*_]*(?P<r>{_ACTION})\s*,\s*(?P<c>{_ACTION})[*_\"'”’]*"
    r"\s*(?::|->|→|=>|⇒)\s*[*_]*\s*"
    rf"\(\s*(?P<a>{_NUM})\s*,\s*(?P<b>{_NUM})\s*\)",
    re.M,
)
_MAX_GAP = 300  # characters between two statements of one matrix


def _action_key(name: str) -> str:
    return " ".join(name.strip(" *_\"'“”‘’").casefold().split())


def _outcomes(text: str) -> list[_Candidate]:
    groups: list[list[re.Match[str]]] = []
    statements = sorted([*_OUTCOME_RE.finditer(text), *_OUTCOME_ITEM_RE.finditer(text)],
                        key=lambda m: m.start())
    for m in statements:
        key = (_action_key(m.group("r")), _action_key(m.group("c")))
        if (groups and m.start() - groups[-1][-1].end() <= _MAX_GAP
                and key not in {(_action_key(g.group("r")), _action_key(g.group("c")))
                                for g in groups[-1]}):
            groups[-1].append(m)
        else:
            groups.append([m])
    found = []
    for group in groups:
        if len(group) < 2:
            continue
        found.append(_candidate(group[0].start(), group[-1].end(), 2, "outcome statements",
                                partial(_outcome_game, group)))
    return found


def _outcome_game(group: list[re.Match[str]]) -> Game:
    payoff: dict[tuple[str, str], list[str]] = {}
    rows: list[str] = []
    cols: list[str] = []
    names: dict[str, str] = {}
    for m in group:
        r, c = _action_key(m.group("r")), _action_key(m.group("c"))
        names.setdefault(r, m.group("r").strip(" *_\"'“”‘’"))
        names.setdefault(c, m.group("c").strip(" *_\"'“”‘’"))
        rows += [r] if r not in rows else []
        cols += [c] if c not in cols else []
        payoff[(r, c)] = [m.group("a"), m.group("b")]
    if set(rows) == set(cols):
        cols = list(rows)
    for r in rows:
        for c in cols:
            if (r, c) not in payoff:
                raise _Malformed(f"no payoffs are given for the profile ({names[r]}, {names[c]})")
    return _build([[payoff[(r, c)] for c in cols] for r in rows])


# ---------------------------------------------------------------- e. row by row in prose

_ROW_BY_ROW_RE = re.compile(r"row[- ]by[- ]row|row-major|row major order|one row at a time", re.I)
_SHAPE_RE = re.compile(r"\b(\d+)\s*(?:x|×|by|-by-)\s*(\d+)\b", re.I)


def _row_by_row(text: str) -> list[_Candidate]:
    found = []
    for m in _ROW_BY_ROW_RE.finditer(text):
        para_start = max(text.rfind("\n\n", 0, m.start()), 0)
        blank = re.compile(r"\n[ \t]*\n").search(text, m.end())
        para_end = blank.start() if blank else len(text)
        pairs = list(_PAIR_RE.finditer(text, m.end(), para_end))
        if len(pairs) < 2:
            continue
        cells = [re.split(r"\s*[,;]\s*", p.group("inner")) for p in pairs]
        shape = _SHAPE_RE.search(text, para_start, para_end)

        def make(cells: list[list[str]] = cells, shape: re.Match[str] | None = shape) -> Game:
            k = len(cells)
            if shape:
                rows, cols = int(shape.group(1)), int(shape.group(2))
            elif math.isqrt(k) ** 2 == k:
                rows = cols = math.isqrt(k)
            else:
                raise _Malformed(f"{plural(k, 'pair')} {'is' if k == 1 else 'are'} listed "
                                 "row by row but the shape is not given (say e.g. '2x3')")
            if rows * cols != k:
                raise _Malformed(f"{plural(k, 'pair')} {'is' if k == 1 else 'are'} listed "
                                 f"row by row, but a {rows}x{cols} matrix has {rows * cols}")
            return _build([list(cells[i * cols:(i + 1) * cols]) for i in range(rows)])

        found.append(_candidate(m.start(), pairs[-1].end(), 3, "row-by-row list", make))
    return found
