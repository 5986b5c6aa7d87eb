"""The write path, in layers (each imports only those below it):

- `kgmem.ingest.loaders`: files in the layouts kgmem reads, parsed into records;
- `kgmem.ingest.document_writes`: a document written through the pipeline (only what changed);
- `kgmem.ingest.pipeline`: `Ingestor`, the stages in order;
- `kgmem.ingest.stages`: the stages (requests, forgetting) and the context they share;
- `kgmem.ingest.writing`: records to rows and transactional writes, appends, owner threads;
- `kgmem.ingest.extraction`: facts, entities, values, attributes, dates, supersession keys;
- `kgmem.ingest.requests`: the grammar, rules and trained decision of memory requests.

Public here (imported lazily, so that importing one loader stays cheap): the loaders
`load_chat`, `parse_chat_conversation`, `load_locomo`, `parse_locomo_sample`, `load_beam_chat`,
`load_numbered`, `parse_numbered`, `load_document`, `load_text`, `Document`, and `IngestReport`.
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "load_chat": "kgmem.ingest.loaders.chat",
    "parse_chat_conversation": "kgmem.ingest.loaders.chat",
    "load_locomo": "kgmem.ingest.loaders.locomo",
    "parse_locomo_sample": "kgmem.ingest.loaders.locomo",
    "load_beam_chat": "kgmem.ingest.loaders.beam",
    "load_numbered": "kgmem.ingest.loaders.numbered",
    "parse_numbered": "kgmem.ingest.loaders.numbered",
    "load_document": "kgmem.ingest.loaders.documents",
    "load_text": "kgmem.ingest.loaders.documents",
    "Document": "kgmem.ingest.loaders.documents",
    "IngestReport": "kgmem.ingest.report",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'kgmem.ingest' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
