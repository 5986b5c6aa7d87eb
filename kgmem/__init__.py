"""kgmem: long-term memory for LLM agents, kept as a knowledge graph in Neo4j.

Public API: `Memory` (the entry point), `Settings`, `EngineConfig`, `SearchResult`, the records
in `kgmem.models`, and the error tree rooted at `KgmemError` (`kgmem.errors`). Names are
imported lazily so that ``import kgmem.errors`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kgmem.api import Memory
    from kgmem.config import Settings
    from kgmem.errors import KgmemError
    from kgmem.models import ConversationRecord, Hit, TurnRecord
    from kgmem.retrieve.config import EngineConfig
    from kgmem.retrieve.retriever import SearchResult

__all__ = [
    "ConversationRecord",
    "EngineConfig",
    "Hit",
    "KgmemError",
    "Memory",
    "SearchResult",
    "Settings",
    "TurnRecord",
]

__version__ = "0.1.0"

_WHERE = {
    "Memory": "kgmem.api",
    "Settings": "kgmem.config",
    "KgmemError": "kgmem.errors",
    "ConversationRecord": "kgmem.models",
    "Hit": "kgmem.models",
    "TurnRecord": "kgmem.models",
    "EngineConfig": "kgmem.retrieve.config",
    "SearchResult": "kgmem.retrieve.retriever",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'kgmem' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
