"""The ablation ladder of the LoCoMo benchmark: one engine configuration per added term or
generator, in the order docs/design.md §3 adds them, plus the negative rows kept for the record."""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from kgmem.bench.fusion import FUSION_ROW
from kgmem.config import Settings
from kgmem.retrieve.config import EngineConfig
from kgmem.retrieve.score import ScoreWeights

__all__ = ["ablation_rows", "default_row"]

Sources = Literal["annotation", "extracted", "both"]


def default_row(
    settings: Settings, engine: Literal["cosine", "linked"], sources: Sources
) -> tuple[str, EngineConfig]:
    """The shipped default configuration (or the cosine baseline), as one named row."""
    config = EngineConfig.from_settings(settings, engine=engine, fact_sources=sources)
    return (engine if engine == "cosine" else f"linked ({sources})", config)


def ablation_rows(settings: Settings, sources: Sources) -> list[tuple[str, EngineConfig]]:
    """The ladder, each row adding one term or generator with the shipped weights:
    cosine → +facts → +adjacency → +time → +bm25 (dense turns, dense facts, BM25) → +content
    words (the BM25 query without stop words and the named speakers' names) → +speaker (the
    named speaker's turns as seeds, the who-said-it term, and the question embedded without
    the speakers' names) → +entity → +window → +events → +hop, then
    negative rows kept for the record: the first-cut fact weight 0.2 (docs/design.md §3.4) and
    reciprocal-rank fusion of whole lists. A signal whose generator is not yet on weighs 0;
    the ``chain`` signal (a plan operator, not a generator) keeps its weight in every row."""
    base = EngineConfig.from_settings(settings, engine="linked", fact_sources=sources)
    w = base.weights
    signals = dict(w.signals)
    rows: list[tuple[str, EngineConfig]] = [("cosine", base.with_(engine="cosine"))]
    first = ScoreWeights(fact=w.fact, adjacent=0.0, time=0.0, date=w.date)
    ladder: list[tuple[str, set[str], ScoreWeights | None]] = [
        ("+facts", {"dense_facts"}, first),
        ("+adjacency", set(), replace(first, adjacent=w.adjacent)),
        ("+time", set(), replace(first, adjacent=w.adjacent, time=w.time)),
        ("+bm25", {"fulltext"}, None),
        ("+content words", set(), None),
        ("+speaker", {"speaker"}, None),
        ("+entity", {"entity"}, None),
        ("+window", {"window"}, None),
        ("+events", {"events"}, None),
        ("+hop", {"hop"}, None),
    ]
    generators = {"dense_turns"}
    content_words = strip = False
    for name, added, fixed in ladder:
        generators |= added
        content_words |= name == "+content words"
        strip |= name == "+speaker"
        weights = fixed if fixed is not None else w
        weights = replace(
            weights,
            signals=tuple(
                (s, value if _GENERATOR_OF.get(s, "chain") in generators | {"chain"} else 0.0)
                for s, value in sorted(signals.items())
            ),
        )
        rows.append(
            (
                name,
                base.with_(
                    generators=frozenset(generators),
                    weights=weights,
                    bm25_content_words=content_words,
                    strip_speakers=strip,
                ),
            )
        )
    first_cut = ScoreWeights(fact=0.2, adjacent=w.adjacent, time=w.time, signals=w.signals)
    rows.append(
        (
            "(neg) first-cut fact weight 0.2",
            base.with_(generators=frozenset({"dense_turns", "dense_facts"}), weights=first_cut),
        )
    )
    rows.append((FUSION_ROW, base))  # run through kgmem.bench.fusion.FusionRetriever
    return rows


#: the generator that produces each scorer signal (``chain`` comes from a plan operator)
_GENERATOR_OF = {
    "bm25": "fulltext",
    "entity": "entity",
    "event": "events",
    "hop": "hop",
    "speaker": "speaker",
}
