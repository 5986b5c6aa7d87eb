"""kgmem as a LangChain retriever (``pip install 'kgmem[langchain]'``).

`KgmemRetriever` is a ``langchain_core.retrievers.BaseRetriever``: ``retriever.invoke(query)``
(or ``ainvoke``, ``batch``, use in any LCEL chain) runs kgmem's linked read path
(`Memory.search`) on one conversation and returns one ``Document`` per hit, best first:

- ``page_content``: the original turn's text (never rewritten);
- ``id``: the turn id (cite it);
- ``metadata``: ``turn_id``, ``conversation_id``, ``session``, ``speaker``, ``observed_at``
  (ISO 8601 UTC), ``date`` (``YYYY-MM-DD``), ``score``, ``terms`` (each score term) and
  ``trace`` (generators, matched fact, event times, hop paths, current-value decisions); the
  document of the turn that `SearchResult.answer` cites also carries ``answer`` (the fact
  that gives the asked attribute its value).

Per call, ``retriever.invoke(query, k=3)`` (or ``ainvoke``) overrides the number of documents,
as LangChain's standard retriever tests expect; ``config`` stays a field. Writing is not a
retriever's job (use `Memory.add_turns` or the LangGraph store).
"""

from __future__ import annotations

import asyncio
from typing import Any

from kgmem.adapters import require
from kgmem.api import Memory
from kgmem.config import DEFAULT_K
from kgmem.errors import MalformedInput
from kgmem.models import Hit
from kgmem.retrieve.config import EngineConfig

require("langchain_core.retrievers", "langchain")

from langchain_core.callbacks import (  # noqa: E402
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document  # noqa: E402
from langchain_core.retrievers import BaseRetriever  # noqa: E402
from pydantic import ConfigDict, Field  # noqa: E402

__all__ = ["KgmemRetriever", "hit_document"]


def hit_document(hit: Hit, conversation_id: str) -> Document:
    """One kgmem hit as a LangChain ``Document`` (see the module docstring for the fields)."""
    return Document(
        id=hit.turn_id,
        page_content=hit.text,
        metadata={
            "turn_id": hit.turn_id,
            "conversation_id": conversation_id,
            "session": hit.session,
            "speaker": hit.speaker,
            "observed_at": hit.observed_at.isoformat(),
            "date": hit.observed_at.date().isoformat(),
            "score": hit.score,
            "terms": dict(hit.terms),
            "trace": dict(hit.trace),
        },
    )


class KgmemRetriever(BaseRetriever):
    """Retrieve a conversation's turns that bear on a query, with their evidence.

    Attributes:
        memory: an open `Memory` (the caller closes it).
        conversation_id: the one conversation searched (others are never read).
        k: documents per query (>= 1).
        config: retrieval configuration (default: the shipped best dev configuration).

    Raises (from ``invoke``): `ConversationNotFound` (the conversation holds no turns),
    `MalformedInput` (a query over `kgmem.api.MAX_QUERY_CHARS`), `StoreError` (Neo4j failed),
    ``ValueError`` (a per-call ``k`` < 1).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: Memory
    conversation_id: str
    k: int = Field(default=DEFAULT_K, ge=1)
    config: EngineConfig | None = None

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
    ) -> list[Document]:
        """The hits of ``query`` as documents; ``k`` (>= 1) overrides the field for this call.

        Raises:
            ValueError: ``k`` < 1 (or not an integer).
        """
        return self._documents(query, k)

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None,
    ) -> list[Document]:
        """`_get_relevant_documents` in a worker thread (Neo4j and the model never block the
        event loop)."""
        return await asyncio.to_thread(self._documents, query, k)

    def _documents(self, query: str, k: int | None) -> list[Document]:
        if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
            raise MalformedInput(f"k must be an integer >= 1, got {k!r}", argument="k")
        n = self.k if k is None else k
        result = self.memory.search(query, self.conversation_id, n, config=self.config)
        docs = [hit_document(hit, self.conversation_id) for hit in result.hits]
        answer = result.answer
        for doc in docs:  # the fact that answers, on the document of the turn it cites
            if answer is not None and doc.id == answer.get("turn_id"):
                doc.metadata["answer"] = answer
        return docs

    def __repr_args__(self) -> Any:  # keep the Memory object out of reprs and traces
        return [(name, getattr(self, name)) for name in ("conversation_id", "k")]
