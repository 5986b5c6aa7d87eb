"""kgmem as a LangChain retriever (``pip install 'kgmem[langchain]'``).

`KgmemRetriever` is a ``langchain_core.retrievers.BaseRetriever``: ``retriever.invoke(query)``
(or ``ainvoke``, ``batch``, use in any LCEL chain) runs kgmem's linked read path
(`Memory.search`) on one conversation and returns one ``Document`` per hit, best first:

- ``page_content``: the original turn's text (never rewritten);
- ``id``: the turn id (cite it);
- ``metadata``: ``turn_id``, ``conversation_id``, ``session``, ``speaker``, ``observed_at``
  (ISO 8601 UTC), ``date`` (``YYYY-MM-DD``), ``score``, ``terms`` (each score term) and
  ``trace`` (generators, matched fact, event times, hop paths, current-value decisions).

Not supported yet: LangChain's ``search_kwargs``-style per-call options (``k`` and ``config``
are fields: ``retriever.with_config`` / a second retriever), and writing (use
`Memory.add_turns` or the LangGraph store).
"""

from __future__ import annotations

from typing import Any

from kgmem.adapters import require
from kgmem.api import Memory
from kgmem.models import Hit
from kgmem.retrieve.config import EngineConfig

require("langchain_core.retrievers", "langchain")

from langchain_core.callbacks import CallbackManagerForRetrieverRun  # noqa: E402
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
    `StoreError` (Neo4j failed).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: Memory
    conversation_id: str
    k: int = Field(default=10, ge=1)
    config: EngineConfig | None = None

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        result = self.memory.search(query, self.conversation_id, self.k, config=self.config)
        return [hit_document(hit, self.conversation_id) for hit in result.hits]

    def __repr_args__(self) -> Any:  # keep the Memory object out of reprs and traces
        return [(name, getattr(self, name)) for name in ("conversation_id", "k")]
