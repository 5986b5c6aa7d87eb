"""What the write path reports, and the names its callers pass in (`kgmem.ingest.pipeline`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

__all__ = ["FactSources", "IngestReport", "Progress", "Row"]

FactSources = Literal["annotation", "extracted", "both", "none"]
#: progress callback: (stage name, items done in this step, stage total)
Progress = Callable[[str, int, int], None]
Row = dict[str, Any]


@dataclass
class IngestReport:
    """What one ingest did. Counts are rows written in this run (0 on an unchanged re-ingest)."""

    conversation_id: str
    turns_total: int = 0
    turns_written: int = 0
    facts_total: int = 0
    facts_written: int = 0
    entities: int = 0
    mentions: int = 0
    supersedes: int = 0
    events: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    """Wall seconds of each stage of a whole-conversation ingest (`kgmem.ingest.pipeline`):
    ``requests`` (memory requests planned, the request decision's embeddings included),
    ``turns`` (turn and passage embeddings), ``extract`` (facts, entities, keys) and ``facts``
    (fact embeddings, supersession, events and every write); empty for an append."""
    embedding_seconds: float = 0.0
    """Wall seconds of the write spent inside the embedder (every turn, passage, fact, clause and
    phrase vector of all stages, each distinct text once): the part of the stages above that an
    embedding-only pass over the same text would also spend. 0.0 for an append."""
    turn_ids: list[str] = field(default_factory=list)
    bookmarks: list[str] = field(default_factory=list)
    """Neo4j bookmarks of the writes (opaque strings). Pass them to another process's
    `Memory.use_bookmarks` so its reads see these writes (causal consistency on a cluster)."""
    requests: list[dict[str, object]] = field(default_factory=list)
    """Memory requests found in this run: ``{"turn_id", "index", "kind", "status", "removed",
    "matched"}`` and, for one the trained request decision found, ``"decided": [class,
    probability]`` (`kgmem.ingest.requests.rules.RequestOutcome`; ids and counts, never text)."""
    withheld: list[str] = field(default_factory=list)
    """Ids of turns not stored because they asked not to be ("don't save this")."""
    removed: list[str] = field(default_factory=list)
    """Ids of turns removed by forget requests (never written, or forgotten if stored)."""
    languages: dict[str, int] = field(default_factory=dict)
    """Turns written in this run by language (ISO 639-1, `kgmem.ingest.extraction.language`); turns
    too short or code-only to classify are not counted."""
    not_applied: list[str] = field(default_factory=list)
    """Ids of request turns that removed nothing: too broad (more than ``max_turns``) or
    matching no stored turn (see ``requests`` for which)."""
    adoptions: list[dict[str, object]] = field(default_factory=list)
    """Facts the trained relation decision gave an older fact's supersession key
    (`kgmem.ingest.extraction.relation_keys.Adoption` as dicts: ``fact_id``, ``older_id``, ``key``,
    ``label``, ``score``)."""

    def as_dict(self) -> dict[str, object]:
        return asdict(self)
