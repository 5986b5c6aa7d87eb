"""The score-terms chart cannot go stale: every term the scorer can write is in its legend,
and each bar is labelled with the turn id and the start of its text."""

from __future__ import annotations

import ast
from datetime import UTC, datetime
from pathlib import Path

import matplotlib

from kgmem.audit.terms import TERMS, format_terms, hit_label, plot_terms
from kgmem.models import Hit
from kgmem.retrieve.retriever import SearchResult

matplotlib.use("Agg")

RETRIEVE = Path(__file__).resolve().parents[2] / "kgmem" / "retrieve"


def _holder(node: ast.expr) -> str | None:
    """``terms`` for ``terms`` / ``hit.terms``, ``bonus`` for ``c.bonus``; else the name."""
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else None


def scorer_term_names() -> set[str]:
    """Every literal key the read path writes into a hit's ``terms`` (the scorer's own terms)
    or a candidate's ``bonus`` (the signals the scorer turns into terms), read from the source
    of kgmem/retrieve, so a term added there is found without anyone listing it."""
    names: set[str] = set()
    for path in RETRIEVE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Dict):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(_holder(t) == "terms" for t in targets):  # terms = {"cosine": ...}
                    names |= {str(k.value) for k in node.value.keys if isinstance(k, ast.Constant)}
            if not isinstance(node, ast.Subscript) or not isinstance(node.ctx, ast.Store):
                continue
            key = node.slice
            if _holder(node.value) in ("terms", "bonus") and isinstance(key, ast.Constant):
                names.add(str(key.value))
    return names


def _hit(n: int, text: str, **terms: float) -> Hit:
    return Hit(
        turn_id=f"conv-x:D1:{n}",
        text=text,
        speaker="Ana",
        session=1,
        observed_at=datetime(2024, 3, 14, tzinfo=UTC),
        score=round(sum(terms.values()), 6),
        terms=terms,
    )


def test_the_scan_finds_the_scorer_terms() -> None:
    found = scorer_term_names()
    # the scorer's own five, and signals from the generators, the engine and the resolver
    assert {"cosine", "fact", "adjacent", "time", "date"} <= found
    assert {"bm25", "speaker", "current"} <= found


def test_every_scorer_term_is_known_and_in_the_chart_legend() -> None:
    found = scorer_term_names()
    assert found <= set(TERMS), f"terms the audit does not know: {sorted(found - set(TERMS))}"
    result = SearchResult(
        query="where does Ana live?",
        conversation_id="conv-x",
        k=2,
        engine="linked",
        hits=[
            _hit(1, "I live in Lisbon now, by the river.", cosine=0.5, fact=0.4, bm25=0.2),
            _hit(2, "Berlin was home for years.", cosine=0.45, current=-0.1),
        ],
    )
    ax = plot_terms(result)
    legend = ax.get_legend()
    assert legend is not None
    labels = {t.get_text().split(" ")[0] for t in legend.get_texts()}
    assert found <= labels, f"missing from the legend: {sorted(found - labels)}"
    assert {t.get_text() for t in legend.get_texts()} >= {"cosine", "fact", "bm25", "time (0)"}
    # best hit at the top, labelled with rank, local turn id, speaker and the start of its text
    ticks = {t.get_text(): t.get_position()[1] for t in ax.get_yticklabels()}
    first = "#1 D1:1 Ana: I live in Lisbon now, by the river."
    assert set(ticks) == {first, "#2 D1:2 Ana: Berlin was home for years."}
    assert ticks[first] > ticks["#2 D1:2 Ana: Berlin was home for years."]


def test_hit_label_and_term_text() -> None:
    hit = _hit(3, "a  long\ntext " * 20, cosine=0.412, fact=0.1, speaker=0.5, time=0.0)
    label = hit_label(hit, width=30)
    assert label.startswith("D1:3 Ana: a long text") and len(label) <= 30 and label.endswith("…")
    assert format_terms(hit.terms) == "cosine +0.41 fact +0.10 speaker +0.50"
    assert format_terms(hit.terms, limit=2) == "cosine +0.41 speaker +0.50 1 more"
    assert format_terms({"cosine": 0.0}) == "no terms"
