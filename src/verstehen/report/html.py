"""What every method's part of the HTML report shares: one self-contained page (inline CSS,
figures as data URIs or inline SVG, no network), tables, verdict badges, and the records
behind the numbers.

A number that rests on records is a link: clicking it opens a panel listing those records
(what was asked, what came back, the grade and why). The records are embedded once per page,
gzip-compressed and base64-encoded, and unpacked by a few lines of inline JavaScript
(`DecompressionStream`) when the first link is clicked.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from verstehen.text.tables import plural

TEXT_LIMIT = 4000  # characters of one field a record panel shows (the run folder has it all)


def esc(text: object) -> str:
    """Text made safe for HTML."""
    return html.escape(str(text), quote=True)


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


def badge(decision: str | None, inner: str | None = None) -> str:
    """A verdict as a coloured word (understands, does not understand, inconclusive); `inner`
    is HTML to show instead of the words (a link to the records behind the verdict)."""
    if decision is None:
        return f'<span class="badge none">{inner or "no verdict"}</span>'
    value = str(decision)
    return f'<span class="badge {esc(value)}">{inner or esc(value.replace("_", " "))}</span>'


def table(head: Sequence[str], rows: Iterable[Sequence[str]], *, cls: str = "") -> str:
    """A table; the head is text, the cells are HTML already (escape what needs it)."""
    header = "".join(f"<th>{esc(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>"
                   for row in rows)
    return (f'<table class="{esc(cls)}"><thead><tr>{header}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def figure(path: Path | None, alt: str) -> str:
    """A PNG of the run folder inlined as a data URI; nothing when there is no file."""
    if path is None or not Path(path).is_file():
        return ""
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return f'<figure><img alt="{esc(alt)}" src="data:image/png;base64,{data}"></figure>'


@dataclass(frozen=True)
class RecordView:
    """One record as a panel shows it: what was asked, what came back, its grade and why."""

    title: str
    question: str
    answer: str
    grade: str
    why: str = ""


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
            self._records.append({k: v[:TEXT_LIMIT] + ("…" if len(v) > TEXT_LIMIT else "")
                                  for k, v in asdict(view).items()})
        return self._index[key]

    def group(self, title: str, records: Sequence[int]) -> int | None:
        """A group of records a link opens, with the panel's title; its id (None when there
        are no records, so nothing to link)."""
        if not records:
            return None
        self._groups.append({"title": title, "records": list(records)})
        return len(self._groups) - 1

    def link(self, text: str, title: str, records: Sequence[int]) -> str:
        """`text` as a link that opens the records (plain text when there are none)."""
        group = self.group(title, records)
        if group is None:
            return esc(text)
        return (f'<a href="#records" class="rec" data-g="{group}" '
                f'title="{plural(len(records), "record")}">{esc(text)}</a>')

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
        self._sections: list[str] = []
        self._nav: list[tuple[str, str]] = []

    def section(self, heading: str, body: str, *, anchor: str | None = None,
                note: str = "") -> None:
        """Add a section: a heading, an optional line under it, and its HTML body."""
        anchor = anchor or f"s{len(self._sections)}"
        self._nav.append((anchor, heading))
        under = f'<p class="note">{note}</p>' if note else ""
        self._sections.append(f'<section id="{esc(anchor)}"><h2>{esc(heading)}</h2>'
                              f"{under}{body}</section>")

    def html(self) -> str:
        """The whole page as one self-contained HTML document."""
        nav = "".join(f'<li><a href="#{esc(a)}">{esc(h)}</a></li>' for a, h in self._nav)
        return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
                f'<meta name="viewport" content="width=device-width, initial-scale=1">'
                f"<title>{esc(self.title)}</title><style>{CSS}</style></head><body>"
                f"<header><h1>{esc(self.title)}</h1><nav><ul>{nav}</ul></nav></header>"
                f"<main>{''.join(self._sections)}</main>"
                '<dialog id="records"><div class="bar"><h3></h3>'
                '<button type="button" class="close">close</button></div>'
                '<div class="list"></div></dialog>'
                '<noscript><p class="note">The records behind the numbers need JavaScript; '
                "they are also in each run folder's records.jsonl.</p></noscript>"
                f'<script type="application/octet-stream" id="book">{self.book.payload()}'
                f"</script><script>{SCRIPT}</script></body></html>")


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
