"""Where a hit comes from: a document chunk's ``source`` (``<document>#<heading trail>``,
`kgmem.ingest.documents`) attached to the hits that are chunks.

The linked read returns each turn's source with it; only hits that still have none and whose
turn id is a document chunk's (`kgmem.turns.is_document_turn`) are looked up, in one round trip
of unique-id lookups (``read/turn_sources``), so a search whose hits are all chat turns reads
nothing more.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgmem.models import Hit
from kgmem.store import Store
from kgmem.turns import is_document_turn

__all__ = ["with_sources"]


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
