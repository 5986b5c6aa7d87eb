"""Choosing a retriever for a configuration: `retriever_for` returns the strategy a
configuration names, `CosineRetriever` (``cosine``) or `LinkedRetriever` (``linked``), each a
`kgmem.retrieve.retriever.Retriever`."""

from __future__ import annotations

from kgmem.embed import Embedder
from kgmem.retrieve.chain import StoreFactSource
from kgmem.retrieve.config import EngineConfig
from kgmem.retrieve.context import ConversationContext
from kgmem.retrieve.cosine import CosineRetriever
from kgmem.retrieve.linked import LinkedRetriever
from kgmem.retrieve.retriever import Retriever
from kgmem.store import Store

__all__ = ["retriever_for"]


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
