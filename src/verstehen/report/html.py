"""What every method's part of the HTML report shares: one self-contained page (inline CSS,
figures as data URIs or inline SVG, no network), tables, verdict badges, and the records
behind the numbers.

A number that rests on records is a link: clicking it opens a panel listing those records
(what was asked, what came back, the grade and why). The records are embedded once per page,
gzip-compressed and base64-encoded, and unpacked by a few lines of inline JavaScript
(`DecompressionStream`) when the first link is clicked; the script puts them in the page as
text (`textContent`), never as markup.

Everything here is made with `report/markup.py`'s elements: a section's body and a table's
cells are `Html` from them or plain text, which is escaped (a section written by hand as a
string shows as text). A record's fields are shown as `text/terminal.py` shows a reply: control
and format characters escaped, a reply's zero-width joiners kept.
"""

from __future__ import annotations

import base64
import gzip
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from verstehen.engine.store.safe_files import read_regular
from verstehen.errors import UserError
from verstehen.report.markup import (
    HTML_SPACE,
    Content,
    Html,
    base64_script,
    concat,
    document,
    el,
    escape,
    trusted,
)
from verstehen.report.svg import clip
from verstehen.text.tables import plural
from verstehen.text.terminal import REPLY_KEEPS, shown

TEXT_LIMIT = 4000  # characters of one field a record panel shows (the run folder has it all)
HEADING_CHARS = 200  # of a section's heading and its entry in the page's contents
PNG = b"\x89PNG\r\n\x1a\n"
esc = escape  # the name a plugin's section written before the builder may import


def num(value: float | None, digits: int = 2) -> str:
    """A number for a table cell; an em dash for None or NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{value:.{digits}f}"


def rate(value: float | None, se: float | None, n: int | None = None, digits: int = 2) -> str:
    """"0.62 ± 0.10 (n=20)": a rate with its standard error and count."""
    text = num(value, digits)
    if value is not None and se is not None:
        text += f" ± {num(se, digits)}"
    if n is not None:
        text += f" (n={n})"
    return text


def badge(decision: str | None, inner: Html | None = None) -> Html:
    """A verdict as a coloured word (understands, does not understand, inconclusive); `inner`
    is what to show instead of the words (a link to the records behind the verdict)."""
    if decision is None:
        return el("span", inner or "no verdict", class_="badge none")
    value = str(decision)
    return el("span", inner or value.replace("_", " "), class_=f"badge {value}")


def table(head: Sequence[Content], rows: Iterable[Sequence[Content]], *, cls: str = "") -> Html:
    """A table: each head and cell text (escaped) or markup made by `el`."""
    return el("table", el("thead", el("tr", (el("th", h) for h in head))),
              el("tbody", (el("tr", (el("td", cell) for cell in row)) for row in rows)),
              class_=cls)


def figure(run: Path, name: str | Path | None, alt: str) -> Html:
    """A PNG of the run folder (`name` in it; never through a link) inlined as a data URI;
    nothing when there is none, or it is not a PNG."""
    if name is None:
        return concat()
    try:
        data = read_regular(Path(run) / Path(name).name)
    except (OSError, UserError, ValueError):  # missing, a link, a name no file can have
        data = b""
    if not data.startswith(PNG):
        return concat()
    uri = "data:image/png;base64," + base64.b64encode(data).decode("ascii")
    return el("figure", el("img", alt=alt, src=uri))


@dataclass(frozen=True)
class RecordView:
    """One record as a panel shows it: what was asked, what came back, its grade and why."""

    title: str
    question: str
    answer: str
    grade: str
    why: str = ""


def _panel_text(field: str, text: str) -> str:
    """A record's field as its panel shows it: cut to TEXT_LIMIT, control and format
    characters escaped (a reply keeps its joiners, as on a terminal)."""
    cut = text[:TEXT_LIMIT] + ("…" if len(text) > TEXT_LIMIT else "")
    return shown(cut, HTML_SPACE if field == "title" else REPLY_KEEPS + HTML_SPACE)


class Book:
    """The records a page links to: each record stored once, grouped by what a number rests on."""

    def __init__(self) -> None:
        self._index: dict[str, int] = {}
        self._records: list[dict[str, str]] = []
        self._groups: list[dict[str, object]] = []

    def record(self, key: str, view: RecordView) -> int:
        """Store a record once under a unique key (run folder and line); its index."""
        if key not in self._index:
            self._index[key] = len(self._records)
            self._records.append({k: _panel_text(k, v) for k, v in asdict(view).items()})
        return self._index[key]

    def group(self, title: str, records: Sequence[int]) -> int | None:
        """A group of records a link opens, with the panel's title; its id (None when there
        are no records, so nothing to link)."""
        if not records:
            return None
        self._groups.append({"title": shown(title, HTML_SPACE), "records": list(records)})
        return len(self._groups) - 1

    def link(self, text: str, title: str, records: Sequence[int]) -> Html:
        """`text` as a link that opens the records (plain text when there are none)."""
        return self.link_to(text, self.group(title, records), plural(len(records), "record"))

    @staticmethod
    def link_to(text: Content, group: int | None, tip: str | None = None) -> Html:
        """`text` as a link to a group made already (plain text without one)."""
        if group is None:
            return concat(text)
        return el("a", text, href="#records", class_="rec", data_g=group, title=tip)

    def payload(self) -> str:
        """The records and groups as base64 of gzipped JSON."""
        data = json.dumps({"records": self._records, "groups": self._groups},
                          ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        return base64.b64encode(gzip.compress(data, compresslevel=6, mtime=0)).decode("ascii")

    @property
    def size(self) -> int:
        """How many distinct records the page holds."""
        return len(self._records)


class Page:
    """One report page: sections in order, and the book of records they link to."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.book = Book()
        self._sections: list[Html] = []
        self._nav: list[tuple[str, str]] = []

    def section(self, heading: str, body: Html, *, anchor: str | None = None,
                note: Content = "") -> None:
        """Add a section: a heading, an optional line under it, and its body."""
        anchor = anchor or f"s{len(self._sections)}"
        heading = clip(heading, HEADING_CHARS)  # a huge model name is cut with an ellipsis
        self._nav.append((anchor, heading))
        under = el("p", note, class_="note") if note else None
        self._sections.append(el("section", el("h2", heading), under, body, id=anchor))

    def html(self) -> str:
        """The whole page as one self-contained HTML document."""
        nav = (el("li", el("a", h, href=f"#{a}")) for a, h in self._nav)
        head = el("head", el("meta", charset="utf-8"),
                  el("meta", name="viewport", content="width=device-width, initial-scale=1"),
                  el("title", self.title), el("style", trusted(CSS)))
        dialog = el("dialog", el("div", el("h3"), el("button", "close", type="button",
                                                     class_="close"), class_="bar"),
                    el("div", class_="list"), id="records")
        body = el("body", el("header", el("h1", self.title), el("nav", el("ul", nav))),
                  el("main", self._sections), dialog,
                  el("noscript", el("p", NOSCRIPT, class_="note")),
                  base64_script(self.book.payload(), id="book"), el("script", trusted(SCRIPT)))
        return document(el("html", head, body, lang="en"))


NOSCRIPT = ("The records behind the numbers need JavaScript; they are also in each run "
            "folder's records.jsonl.")

CSS = """
:root{--fg:#1d232b;--muted:#5b6470;--line:#d9dee4;--bg:#fff;--soft:#f5f7f9;--ok:#1a7f37;
--bad:#b42318;--mid:#8a6d00;--link:#0b5cad}
*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",
sans-serif;color:var(--fg);background:var(--bg)}header{padding:18px 28px;border-bottom:1px
solid var(--line);background:var(--soft)}h1{margin:0 0 6px;font-size:22px}nav ul{margin:0;
padding:0;list-style:none;display:flex;flex-wrap:wrap;gap:4px 16px;font-size:13px}
main{padding:8px 28px 40px;max-width:1400px}section{margin:26px 0}h2{font-size:18px;
margin:0 0 4px;border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:15px;
margin:18px 0 6px}.note{color:var(--muted);margin:4px 0 10px;font-size:13px}
.warn{color:var(--bad);font-weight:600;margin:4px 0 10px;font-size:13px}
table{border-collapse:collapse;margin:8px 0 14px;font-size:13.5px}th,td{border:1px solid
var(--line);padding:4px 8px;text-align:left;vertical-align:top}th{background:var(--soft);
font-weight:600}td.num,th.num{text-align:right}a{color:var(--link)}a.rec{text-decoration:none;
border-bottom:1px dotted var(--link)}a.rec:hover{background:#e8f1fb}
.badge a.rec{color:#fff;border-bottom-color:#fff}.badge a.rec:hover{background:none}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12.5px;
font-weight:600;color:#fff;white-space:nowrap}.badge.understands{background:var(--ok)}
.badge.does_not_understand{background:var(--bad)}.badge.inconclusive{background:var(--mid)}
.badge.none{background:#888}figure{margin:8px 0}figure img{max-width:min(100%,720px);height:auto;
border:1px solid var(--line)}dialog{width:min(1100px,94vw);max-height:88vh;border:1px solid
var(--line);border-radius:8px;padding:0}dialog .bar{display:flex;justify-content:space-between;
align-items:center;padding:10px 16px;border-bottom:1px solid var(--line);background:var(--soft);
position:sticky;top:0}dialog h3{margin:0}dialog .list{padding:6px 16px 16px}
.record{border:1px solid var(--line);border-radius:6px;margin:10px 0;padding:8px 12px}
.record h4{margin:0 0 6px;font-size:13px;color:var(--muted)}.record .grade{font-weight:600}
.record pre{white-space:pre-wrap;word-break:break-word;background:var(--soft);padding:6px 8px;
margin:4px 0;max-height:260px;overflow:auto;font-size:12.5px}.record dt{font-size:12px;
color:var(--muted);margin-top:4px}.record dd{margin:0}ul.evidence{margin:4px 0;padding-left:18px;
font-size:13px}button.more{margin:10px 0;padding:4px 12px}
figure.chart{margin:10px 0 6px}figure.chart svg{display:block;max-width:100%;height:auto}
svg a.mark{cursor:pointer}svg a.mark:hover line,svg a.mark:focus line{stroke-width:4}
svg a.mark:hover .dot{stroke:#1d232b}svg a.mark:hover text{text-decoration:underline}
p.legend{font-size:13px;color:var(--fg);max-width:1300px;margin:2px 0 14px}
"""

SCRIPT = """
(function(){
  let book = null;
  async function load(){
    if (book) return book;
    const bytes = Uint8Array.from(atob(document.getElementById('book').textContent.trim()),
                                  c => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    book = JSON.parse(await new Response(stream).text());
    return book;
  }
  function field(name, text, pre){
    const dt = document.createElement('dt'); dt.textContent = name;
    const dd = document.createElement('dd');
    const el = document.createElement(pre ? 'pre' : 'span'); el.textContent = text;
    dd.appendChild(el); return [dt, dd];
  }
  const CHUNK = 200;
  function card(r){
    const card = document.createElement('div'); card.className = 'record';
    const h = document.createElement('h4'); h.textContent = r.title; card.appendChild(h);
    const dl = document.createElement('dl');
    dl.append(...field('question', r.question, true), ...field('answer', r.answer, true));
    const [gt, gd] = field('grade', r.grade, false); gd.className = 'grade';
    dl.append(gt, gd);
    if (r.why) dl.append(...field('why', r.why, false));
    card.appendChild(dl); return card;
  }
  function more(list, data, ids, from){
    for (const i of ids.slice(from, from + CHUNK)) list.appendChild(card(data.records[i]));
    const left = ids.length - from - CHUNK;
    if (left > 0){
      const b = document.createElement('button'); b.type = 'button'; b.className = 'more';
      b.textContent = 'show ' + Math.min(left, CHUNK) + ' more (' + left + ' left)';
      b.onclick = () => { b.remove(); more(list, data, ids, from + CHUNK); };
      list.appendChild(b);
    }
  }
  async function open(group){
    const data = await load();
    const g = data.groups[group];
    const dialog = document.getElementById('records');
    dialog.querySelector('h3').textContent = g.title + ' (' + g.records.length + ')';
    const list = dialog.querySelector('.list'); list.replaceChildren();
    more(list, data, g.records, 0);
    if (!dialog.open) dialog.showModal();
    dialog.scrollTop = 0;
  }
  document.addEventListener('click', ev => {
    const a = ev.target.closest('a.rec');
    if (a){ ev.preventDefault(); open(Number(a.dataset.g)); }
    if (ev.target.closest('dialog .close')) document.getElementById('records').close();
  });
})();
"""
