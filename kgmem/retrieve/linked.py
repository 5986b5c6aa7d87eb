"""The linked retriever: small generator pools merged by turn id and scored once.

`LinkedRetriever._rank` resolves the request once and runs each stage once, in order; every
stage after the first takes the resolved read (`kgmem.retrieve.request_read.RequestRead`), not
the request:

1. `_read`: the conversation's context (cached), the request resolved against it (the question
   read once and planned, the conversations, entity scopes, persons and current-value entities:
   `kgmem.retrieve.request_read.resolve_request`) and the plan's ONE ``read/linked_read`` round
   trip (dense turns, dense facts → cited turns, BM25, the named speakers' turns, entity links,
   the time window, event expansion, citing facts and current-value input);
2. the pool (`kgmem.retrieve.generators.pool_of`): the seeds merged, their best citing facts,
   the stateful hop (off by default), the who-said-it signal, the turns visible at ``as_of``;
3. the current or past value per supersession key (`kgmem.retrieve.resolve.current_values`)
   and the relation chain (`kgmem.retrieve.chain.chain_stage`);
4. the one scorer (`kgmem.retrieve.score.score_candidates`), the answerability decision
   (`kgmem.retrieve.answerability`) and the answer (`kgmem.retrieve.answer`).

(Reciprocal-rank fusion of whole lists, measured worse than the single scorer, is a negative
row of the benchmark: `kgmem.bench.fusion`.)
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kgmem.embed import Embedder
from kgmem.errors import ConversationNotFound
from kgmem.retrieve import generators as gen
from kgmem.retrieve.answer import answer_of
from kgmem.retrieve.answerability import answerability
from kgmem.retrieve.chain import StoreFactSource, chain_stage
from kgmem.retrieve.config import EngineConfig
from kgmem.retrieve.context import ConversationContext, read_context
from kgmem.retrieve.plan import Planner
from kgmem.retrieve.question import read_question, stop_list
from kgmem.retrieve.request_read import RequestRead, resolve_request
from kgmem.retrieve.resolve import current_values, order_hits
from kgmem.retrieve.retriever import Ranking, Reading, Request, Retriever
from kgmem.retrieve.scope import Scope
from kgmem.retrieve.score import score_candidates
from kgmem.store import Store

__all__ = ["LinkedRetriever"]


class LinkedRetriever(Retriever):
    """The product's strategy (module docstring); see `Retriever` for the arguments."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        config: EngineConfig,
        *,
        contexts: dict[str, ConversationContext] | None = None,
        chain_sources: dict[str, StoreFactSource] | None = None,
    ) -> None:
        super().__init__(store, embedder, config, contexts=contexts, chain_sources=chain_sources)
        self.planner = Planner(**config.pools)

    # --- the template's hooks ---------------------------------------------------------------
    def _warm(self) -> None:
        if self.config.bm25_content_words:
            stop_list()  # load the stop list once, outside the timing

    def reading(
        self,
        query: str,
        conversation_id: str | Scope,
        *,
        as_of: datetime | None = None,
        asked_by: str | None = None,
    ) -> tuple[str, Reading]:
        """The question read once against the conversation context (read when not cached),
        and the text embedded for it: with ``strip_speakers``, the question without the names
        of the speakers it names (`Question.without_names`), so the vector carries what is
        asked and the ``speaker`` generator and term carry who (every turn and fact about a
        speaker is close to her name; measured on the LoCoMo dev split); otherwise the
        question's ``text``. An ``asked_by`` that is not a speaker is read as no asker here:
        planning raises for it (`kgmem.retrieve.request_read.asker_of`), after the checks that
        come first.

        Raises:
            ConversationNotFound: the conversation holds no turns.
        """
        scope = (
            Scope(conversation_id=conversation_id)
            if isinstance(conversation_id, str)
            else conversation_id
        )
        cached = self.contexts.get(scope.key)
        context = cached if cached is not None else self._context(scope)
        asker = context.user if asked_by is None else asked_by
        question = read_question(
            query,
            entities=context.entities,
            reference=as_of or context.latest,
            speakers=context.speakers,
            asker=asker if asker in context.speakers else None,
        )
        text = question.without_names if self.config.strip_speakers else question.text
        return text, Reading(question, context.version)

    def _rank(self, request: Request) -> Ranking:
        cfg = self.config
        read, pools = self._read(request)
        qplan = read.plan
        merged, hops = gen.pool_of(
            self.store,
            pools,
            qplan,
            cfg,
            params=read.params,
            speakers=read.context.speakers,
            hop=not read.by_owner and not read.filtered,  # the hop reads one conversation
            as_of=read.as_of,
            roles=read.context.roles,
        )
        current: list[dict[str, Any]] = []
        if read.resolves_current:
            merged, current = current_values(qplan, merged, pools, cfg.current_bonus)
        merged, chain, qplan = chain_stage(
            self.store,
            self.chain_sources,
            qplan,
            merged,
            conversation_id=read.conversation_id,
            off=read.chain_off,
            embedding=read.params["embedding"],
            hops=cfg.chain_hops,
            versions=cfg.chain_versions,
            sources=cfg.sources,
        )
        hits = order_hits(score_candidates(merged, cfg.weights, read.window), current)
        answerable = answerability(self.store, read, hits, pools.holder)
        answer = None
        if current and answerable.get("answerable", True):
            answer = answer_of(self.store, read.conversation_id, qplan.reading, current)
        return Ranking(
            hits=hits,
            plan=qplan,
            candidates=len(merged),
            question=qplan.reading.as_dict(),
            hops=hops,
            current=current,
            answerability=answerable,
            chain=chain,
            answer=answer,
        )

    # --- step 1: context, the request resolved, the one round trip ---------------------------
    def _context(self, scope: Scope) -> ConversationContext:
        """The scope's context (`read_context`: one round trip, returning the cached copy when
        its version is current); a fresh copy drops the chain walk's cached names.

        Raises:
            ConversationNotFound: the conversation (or owner: `OwnerNotFound`) holds no turns.
        """
        key = scope.key
        cached = self.contexts.get(key)
        try:
            context = read_context(self.store, scope, self.contexts)
        except ConversationNotFound:
            self.chain_sources.pop(key, None)
            raise
        if context is not cached:
            self.chain_sources.pop(key, None)  # its entity names may be stale too
        return context

    def _read(self, request: Request) -> tuple[RequestRead, gen.LinkedPools]:
        """The request resolved (`resolve_request`) and the plan's ONE ``read/linked_read``
        round trip. The context is read only without a cached copy, or when that round trip
        (which returns the conversation's write version) shows the cached copy is stale: then
        the plan may miss new entities, so the context is read afresh and the request
        resolved and read once more.

        Raises:
            ConversationNotFound: no turns, or the conversation is another owner's.
            MalformedInput: ``asked_by`` is not a speaker of the conversation.
        """
        scope, cfg = request.scope, self.config
        cached = self.contexts.get(scope.key)
        for fresh in (cached is None, True):
            context = self._context(scope) if fresh or cached is None else cached
            if not scope.by_owner and scope.owner is not None and context.owner != scope.owner:
                raise ConversationNotFound(str(scope.conversation_id))  # someone else's
            read = resolve_request(request, context, self.planner, cfg.generators)
            pools = gen.linked_read(
                self.store,
                read.params,
                read.plan,
                cfg,
                speakers=context.speakers,
                current_entity_ids=read.current_ids,
                as_of=read.as_of,
                scope=read.scope,
                holder_k=cfg.pool_holder if read.persons else 0,
                holder_conversation_ids=read.conversation_ids,
            )
            if fresh or pools.context_version == context.version:
                break
            self.contexts.pop(scope.key, None)
        return read, pools
