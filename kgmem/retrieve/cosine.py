"""The cosine baseline: the conversation's exact top-k turns by cos(turn, q)."""

from __future__ import annotations

from kgmem.errors import ConversationNotFound, MalformedInput
from kgmem.retrieve import generators as gen
from kgmem.retrieve.plan import plan_question
from kgmem.retrieve.retriever import Ranking, Request, Retriever
from kgmem.retrieve.score import ScoreWeights, score_candidates

__all__ = ["CosineRetriever"]


class CosineRetriever(Retriever):
    """Exact top-``k`` by cosine (``read/search_turns_exact``); every hit's only term is
    ``cosine``. The plan is reported but steers nothing."""

    def _rank(self, request: Request) -> Ranking:
        if request.scope.by_owner or request.filters.active:
            raise MalformedInput(
                "the cosine baseline searches one conversation without filters; owner search "
                "and filters need the linked engine",
                conversation_id=request.conversation_id or None,
            )
        qplan = plan_question(request.reading.question)
        pool = gen.dense_turns(self.store, request.params, request.k)
        if not pool:
            raise ConversationNotFound(request.conversation_id)
        hits = score_candidates(pool, ScoreWeights(fact=0.0, adjacent=0.0, time=0.0))
        for hit in hits:
            hit.terms = {"cosine": hit.terms["cosine"]}
        return Ranking(hits=hits, plan=qplan, candidates=len(pool))
