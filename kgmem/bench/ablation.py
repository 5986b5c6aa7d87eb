"""The ablation ladder of the LoCoMo benchmark: one engine configuration per added term or
generator, in the order design.md §3 adds them, plus the negative rows kept for the record."""

from __future__ import annotations

from typing import Literal

from kgmem.config import Settings
from kgmem.retrieve.engine import ALL_GENERATORS, EngineConfig
from kgmem.retrieve.score import ScoreWeights

__all__ = ["ablation_rows", "default_row"]

Sources = Literal["annotation", "extracted", "both"]


def default_row(settings: Settings, engine: Literal["cosine", "linked"], sources: Sources) -> tuple[str, EngineConfig]:
    """The shipped default configuration (or the cosine baseline), as one named row."""
    config = EngineConfig.from_settings(settings, engine=engine, fact_sources=sources)
    return (engine if engine == "cosine" else f"linked ({sources})", config)


def ablation_rows(settings: Settings, sources: Sources) -> list[tuple[str, EngineConfig]]:
    """cosine → +facts → +adjacency → +time (→ further generators as they are enabled)."""
    base = EngineConfig.from_settings(settings, engine="linked", fact_sources=sources)
    w = base.weights
    only = frozenset({"dense_turns", "dense_facts"})
    return [
        ("cosine", base.with_(engine="cosine")),
        ("+facts", base.with_(generators=only, weights=ScoreWeights(fact=w.fact, adjacent=0.0, time=0.0))),
        ("+adjacency", base.with_(generators=only, weights=ScoreWeights(fact=w.fact, adjacent=w.adjacent, time=0.0))),
        ("+time", base.with_(generators=only, weights=w)),
        ("+bm25", base.with_(generators=only | {"fulltext"}, weights=w)),
        ("+entity", base.with_(generators=only | {"fulltext", "entity"}, weights=w)),
        ("+window", base.with_(generators=only | {"fulltext", "entity", "window"}, weights=w)),
        ("+events", base.with_(generators=only | {"fulltext", "entity", "window", "events"}, weights=w)),
        ("+timeline", base.with_(generators=only | {"fulltext", "entity", "window", "events", "timeline"}, weights=w)),
        ("+hop", base.with_(generators=frozenset(ALL_GENERATORS), weights=w)),
    ]
