"""Choosing a retriever for a configuration, and the deprecated `SearchEngine`.

`retriever_for` returns the strategy a configuration names: `CosineRetriever` (``cosine``) or
`LinkedRetriever` (``linked``), each a `kgmem.retrieve.retriever.Retriever`. `SearchEngine`, the
single class that branched on the strategy inside its ``search``, remains for one release as a
deprecated wrapper over them. The configuration names (`EngineConfig`, `ALL_GENERATORS`) and
`SearchResult` are re-exported from their homes for existing imports.
"""

from __future__ import annotations

import warnings
from datetime import datetime

import numpy as np
import numpy.typing as npt

from kgmem.embed import Embedder
from kgmem.retrieve.chain import StoreFactSource
from kgmem.retrieve.config import (
    DEFAULT_GENERATORS,
    GENERATORS,
    EngineConfig,
    EngineName,
    FactSourceChoice,
)
from kgmem.retrieve.context import ConversationContext
from kgmem.retrieve.cosine import CosineRetriever
from kgmem.retrieve.linked import LinkedRetriever, speaker_gap, strip_names
from kgmem.retrieve.retriever import Retriever, SearchResult
from kgmem.store import Store

__all__ = [
    "ALL_GENERATORS",
    "DEFAULT_GENERATORS",
    "EngineConfig",
    "EngineName",
    "FactSourceChoice",
    "SearchEngine",
    "SearchResult",
    "retriever_for",
    "speaker_gap",
    "strip_names",
]

#: every generator the linked retriever knows, in ablation order (the planner budgets the same set)
ALL_GENERATORS = GENERATORS


def retriever_for(
    store: Store,
    embedder: Embedder,
    config: EngineConfig,
    *,
    contexts: dict[str, ConversationContext] | None = None,
    chain_sources: dict[str, StoreFactSource] | None = None,
) -> Retriever:
    """The retriever of ``config.engine`` over ``store`` (see `Retriever` for the arguments)."""
    kind = CosineRetriever if config.engine == "cosine" else LinkedRetriever
    return kind(store, embedder, config, contexts=contexts, chain_sources=chain_sources)


class SearchEngine:
    """Deprecated: use `kgmem.api.Memory.search`, `kgmem.api.Memory.engine` or `retriever_for`.

    Kept for one release; ``search`` runs the retriever of the configuration's strategy.

    Warns:
        DeprecationWarning: when constructed.
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        config: EngineConfig,
        *,
        contexts: dict[str, ConversationContext] | None = None,
        chain_sources: dict[str, StoreFactSource] | None = None,
    ) -> None:
        warnings.warn(
            "SearchEngine is deprecated; use Memory.engine(config) or "
            "kgmem.retrieve.engine.retriever_for (a CosineRetriever or LinkedRetriever)",
            DeprecationWarning,
            stacklevel=2,
        )
        self.store = store
        self.embedder = embedder
        self.config = config
        self.contexts = contexts if contexts is not None else {}
        self.chain_sources = chain_sources if chain_sources is not None else {}

    def _retriever(self, config: EngineConfig | None) -> Retriever:
        return retriever_for(
            self.store,
            self.embedder,
            config or self.config,
            contexts=self.contexts,
            chain_sources=self.chain_sources,
        )

    def query_text(
        self, query: str, conversation_id: str, config: EngineConfig | None = None
    ) -> str:
        """See `LinkedRetriever.query_text`."""
        return self._retriever(config).query_text(query, conversation_id)

    def search(
        self,
        query: str,
        conversation_id: str,
        k: int = 10,
        *,
        embedding: npt.NDArray[np.float32] | None = None,
        config: EngineConfig | None = None,
        as_of: datetime | None = None,
    ) -> SearchResult:
        """See `Retriever.search` (``config`` overrides the engine's for this call)."""
        return self._retriever(config).search(
            query, conversation_id, k, embedding=embedding, as_of=as_of
        )
