"""Where a hit comes from: a document chunk's ``source`` (``<document>#<heading trail>``,
`kgmem.ingest.loaders.documents`) attached to the hits that are chunks.

The linked read returns each turn's source with it; only hits that still have none and whose
turn id is a document chunk's (`kgmem.turns.is_document_turn`) are looked up, in one round trip
of unique-id lookups (``read/turn_sources``), so a search whose hits are all chat turns reads
nothing more.

A hit's metadata (`kgmem.metadata`) is read the same way, in one round trip, where the
scope's context says some turn carries metadata (`attach_metadata`).
"""

from __future__ import annotations

from collections.abc import Sequence

from kgmem.metadata import from_properties
from kgmem.models import Hit
from kgmem.store import Store
from kgmem.turns import is_document_turn

__all__ = ["attach_metadata", "with_sources"]


def with_sources(store: Store, hits: Sequence[Hit]) -> list[Hit]:
    """``hits`` in the same order, each document chunk's with its ``source`` set."""
    ids = [h.turn_id for h in hits if h.source is None and is_document_turn(h.turn_id)]
    if not ids:
        return list(hits)
    found = {row["id"]: row["source"] for row in store.read("read/turn_sources", turn_ids=ids)}
    return [
        hit.model_copy(update={"source": found[hit.turn_id]}) if hit.turn_id in found else hit
        for hit in hits
    ]


def attach_metadata(store: Store, hits: Sequence[Hit]) -> None:
    """Set each hit's ``metadata`` from the store (one round trip; none without hits)."""
    if not hits:
        return
    scope = sorted({h.conversation_id for h in hits if h.conversation_id})
    ids = [h.turn_id for h in hits]
    if not scope:  # an engine that leaves conversation_id empty: ids are globally unique
        scope = sorted({i.split(":", 1)[0] for i in ids})
    rows = store.read("read/turn_metadata", turn_ids=ids, conversation_ids=scope)
    found = {r["turn_id"]: from_properties(r["pairs"]) for r in rows}
    for hit in hits:
        hit.metadata = found.get(hit.turn_id, {})
