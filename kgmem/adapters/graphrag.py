"""kgmem's read path as a neo4j-graphrag retriever (``pip install 'kgmem[graphrag]'``).

`KgmemGraphRetriever` subclasses ``neo4j_graphrag.retrievers.base.Retriever``, so it plugs into
``neo4j_graphrag.generation.GraphRAG`` (and anything else that takes a ``Retriever``) next to
Neo4j's own ``VectorRetriever`` / ``HybridRetriever``:

    rag = GraphRAG(retriever=KgmemGraphRetriever(memory, "chat-42"), llm=llm)
    rag.search("Where does Ana live now?", retriever_config={"top_k": 5}, return_context=True)

``search(query_text, top_k)`` runs `Memory.search` on one conversation and returns one
``RetrieverResultItem`` per hit, best first: ``content`` is ``[turn id] (date, speaker) text``
(what GraphRAG puts in the prompt, so the model can cite turn ids) and ``metadata`` carries
``turn_id``, ``conversation_id``, ``session``, ``speaker``, ``observed_at``, ``score``,
``terms`` and ``trace``. The result's metadata adds the query plan, candidates examined,
timings, ``answerable`` and ``answer`` (`kgmem.retrieve.retriever.SearchResult.answer`).

Not supported yet: ``query_vector`` (kgmem embeds the query with its own model, the one the
turns were embedded with; passing a vector raises `NotSupported`), ``filters`` and
``effective_search_ratio`` of Neo4j's vector retrievers, and ``convert_to_tool`` descriptions
beyond the defaults. The retriever uses the memory's own driver; neo4j-graphrag sets that
driver's user agent to its own name (``override_user_agent``), which only shows in server logs.
"""

from __future__ import annotations

from typing import Any

from kgmem.adapters import require
from kgmem.api import Memory
from kgmem.errors import MalformedInput, NotSupported
from kgmem.retrieve.config import EngineConfig
from kgmem.store.interop import driver_of, records

require("neo4j_graphrag.retrievers.base", "graphrag")

from neo4j_graphrag.retrievers.base import Retriever  # noqa: E402
from neo4j_graphrag.types import RawSearchResult, RetrieverResultItem  # noqa: E402

__all__ = ["KgmemGraphRetriever"]


class KgmemGraphRetriever(Retriever):
    """A GraphRAG ``Retriever`` over one kgmem conversation.

    Args:
        memory: an open `Memory` (the caller closes it).
        conversation_id: the one conversation searched.
        config: retrieval configuration (default: the shipped best dev configuration).

    Raises:
        Neo4jVersionError (neo4j-graphrag's): the server is older than its vector support.
    """

    def __init__(
        self, memory: Memory, conversation_id: str, *, config: EngineConfig | None = None
    ) -> None:
        super().__init__(driver_of(memory.store), memory.store.database)
        self.memory = memory
        self.conversation_id = conversation_id
        self.config = config

    def get_search_results(
        self,
        query_text: str | None = None,
        top_k: int = 5,
        query_vector: list[float] | None = None,
        **kwargs: Any,
    ) -> RawSearchResult:
        """The conversation's turns that bear on ``query_text``, best first.

        Args:
            query_text: the question.
            top_k: number of turns (>= 1).
            query_vector: not supported (kgmem embeds the query itself).

        Returns:
            ``RawSearchResult`` with one record per hit (``turn_id``, ``text``, ``metadata``).

        Raises:
            NotSupported: a ``query_vector`` or other vector-retriever options were passed.
            ValueError: no ``query_text`` or ``top_k`` < 1.
            ConversationNotFound: the conversation holds no turns.
        """
        if query_vector is not None or kwargs:
            names = ["query_vector"] if query_vector is not None else []
            raise NotSupported(
                f"KgmemGraphRetriever takes query_text and top_k only, not {names + sorted(kwargs)}"
            )
        if not query_text:
            raise MalformedInput("KgmemGraphRetriever needs query_text", argument="query_text")
        result = self.memory.search(query_text, self.conversation_id, top_k, config=self.config)
        rows = [
            {
                "turn_id": hit.turn_id,
                "text": hit.text,
                "metadata": {
                    "turn_id": hit.turn_id,
                    "conversation_id": self.conversation_id,
                    "session": hit.session,
                    "speaker": hit.speaker,
                    "observed_at": hit.observed_at.isoformat(),
                    "score": hit.score,
                    "terms": dict(hit.terms),
                    "trace": dict(hit.trace),
                },
            }
            for hit in result.hits
        ]
        return RawSearchResult(
            records=records(rows),
            metadata={
                "query_vector": None,
                "plan": result.plan,
                "candidates": result.candidates,
                "timings_ms": result.timings_ms,
                "answerable": result.answerable,
                "answer": result.answer,
            },
        )

    def default_record_formatter(self, record: Any) -> RetrieverResultItem:
        """``[turn id] (date, speaker) text`` for the prompt; the evidence in ``metadata``."""
        meta = dict(record["metadata"])
        content = f"[{record['turn_id']}] ({meta['observed_at'][:10]}, {meta['speaker']}) "
        return RetrieverResultItem(content=content + record["text"], metadata=meta)
