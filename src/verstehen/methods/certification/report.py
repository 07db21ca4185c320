"""Verdicts in plain words and as table rows, for the terminal."""

from __future__ import annotations

from typing import Any

WORDS = {"understands": "UNDERSTANDS", "does not understand": "DOES NOT UNDERSTAND",
         "inconclusive": "INCONCLUSIVE"}


def explain(verdict: dict[str, Any]) -> list[str]:
    """Why the verdict is what it is, in a few plain lines."""
    v = verdict
    lines = [f"{WORDS[v['decision']]} at δ = {v['delta']:g} (a decisive verdict is wrong with "
             f"probability at most {v['delta']:g})"]
    if v["decision"] == "understands":
        lines.append(f"  mean score >= {v['score_lower']:.4f}, at least the passing grade "
                     f"{v['pg']:g}")
        lines.append(f"  ridiculous answers <= {v['ridiculous_upper']:.6f} of the scope, at most "
                     f"RID {v['rid']:g}")
    elif v["decision"] == "does not understand":
        if "bad_grade" in v["decided_by"]:
            lines.append(f"  mean score <= {v['score_upper']:.4f}, below the passing grade "
                         f"{v['pg']:g}")
        if "bad_rid" in v["decided_by"]:
            lines.append(f"  ridiculous answers >= {v['ridiculous_lower']:.6f} of the scope, "
                         f"above RID {v['rid']:g}")
    else:
        lines.append(f"  mean score in [{v['score_lower']:.4f}, {v['score_upper']:.4f}] "
                     f"(PG {v['pg']:g}); ridiculous rate in [{v['ridiculous_lower']:.6f}, "
                     f"{v['ridiculous_upper']:.6f}] (RID {v['rid']:g})")
        more = v.get("more_questions")
        lines.append("  more questions will likely not decide it: the observed rates sit on "
                     "the thresholds" if more is None else
                     f"  not enough evidence yet: about {more} more questions would likely "
                     "decide it")
    lines.append(f"  from n = {v['n']} answers: mean score {v['mean_score']:.4f}, "
                 f"ridiculous {v['ridiculous_rate']:.4f}")
    details = v.get("details") or {}
    if details.get("sequential"):
        lines.append(f"  sequential: look {details['look']} of checkpoints "
                     f"{details['checkpoints']}, tested at δ_j = {details['delta_look']:.2e}")
    if "coverage" in details:
        fams = [c for c in details["components"] if c["family"] != "(remaining)"]
        lines.append(f"  explanations cover {details['coverage']:.0%} of the scope: " + ", ".join(
            f"{c['family']} (program score {c['mean_score']:.3f} on {c['m']} questions)"
            for c in fams))
    return lines


def verdict_row(summary: dict[str, Any]) -> list[str]:
    """One table row: scope, verdict, n, mean [L, U], ridiculous [L, U], decided by, more."""
    v = summary.get("verdict")
    if v is None:
        return [summary["scope"], "ERROR", str(summary["asked"]), "", "", "",
                f"{summary['failed_calls']} failed calls"]
    more = v.get("more_questions")
    return [summary["scope"], WORDS[v["decision"]].lower(), str(v["n"]),
            f"{v['mean_score']:.3f} [{v['score_lower']:.3f}, {v['score_upper']:.3f}]",
            f"{v['ridiculous_rate']:.3f} [{v['ridiculous_lower']:.4f}, "
            f"{v['ridiculous_upper']:.4f}]",
            ", ".join(v["decided_by"]) or "-",
            "" if v["decision"] != "inconclusive" else ("?" if more is None else f"~{more}")]
