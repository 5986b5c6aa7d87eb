"""The linked retriever: small generator pools merged by turn id and scored once.

`LinkedRetriever._rank` runs named steps, in order:

1. `_read`: the conversation's context (cached), the question read once and planned, and the
   plan's ONE ``read/linked_read`` round trip (dense turns, dense facts → cited turns, BM25,
   the named speakers' turns, entity links, the time window, event expansion, citing facts and
   current-value input; `kgmem.retrieve.generators`);
2. `_pool`: the seeds merged, their best citing facts, the stateful hop (off by default), the
   who-said-it signal, and the turns visible at ``as_of``;
3. `_resolve`: the current or past value per supersession key (`kgmem.retrieve.resolve`) and
   the relation chain (`kgmem.retrieve.chain`);
4. the one scorer (`kgmem.retrieve.score.score_candidates`) and the answerability decision
   (`kgmem.retrieve.answerable`).

(Reciprocal-rank fusion of whole lists, measured worse than the single scorer, is a negative
row of the benchmark: `kgmem.bench.fusion`.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from kgmem.embed import Embedder
from kgmem.errors import ConversationNotFound, MalformedInput
from kgmem.models import Hit
from kgmem.retrieve import generators as gen
from kgmem.retrieve.answer import answer_of
from kgmem.retrieve.answerable import (
    NOT_PERSONS,
    Support,
    asker_persons,
    attribute_verdict,
    decide,
    holder_gap,
    judge,
    speaker_person,
)
from kgmem.retrieve.answerable_model import combine, trained_support
from kgmem.retrieve.chain import ChainResult, StoreFactSource, follow_chain
from kgmem.retrieve.config import EngineConfig
from kgmem.retrieve.context import ConversationContext, read_context
from kgmem.retrieve.names import strip_names
from kgmem.retrieve.plan import Planner, QueryPlan
from kgmem.retrieve.question import read_question, stop_list
from kgmem.retrieve.resolve import mark_answers, order_hits, relevant_rows, resolve_state
from kgmem.retrieve.retriever import Ranking, Reading, Request, Retriever
from kgmem.retrieve.scope import Bounds, Scope
from kgmem.retrieve.score import Candidate, TimeWindow, merge_candidates, score_candidates
from kgmem.store import Store
from kgmem.store.tenant import entity_scope

__all__ = ["LinkedRetriever", "read_scope", "speaker_gap"]


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
    ) -> tuple[str, Reading | None]:
        """The question read once against the conversation context (read when not cached),
        and the text embedded for it: with ``strip_speakers``, the question without the names
        of the speakers it names (`Question.named`), so the vector carries what is asked and
        the ``speaker`` generator and term carry who (every turn and fact about a speaker is
        close to her name; measured on the LoCoMo dev split); otherwise ``query`` itself. An
        ``asked_by`` that is not a speaker is read as no asker here: planning raises for it
        (`_asker`), after the checks that come first.

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
        text = strip_names(query, question.named) if self.config.strip_speakers else query
        return text, Reading(question, context.version)

    def _rank(self, request: Request) -> Ranking:
        context, qplan, pools = self._read(request)
        merged, hops = self._pool(request, qplan, pools, context)
        merged, current, chain, qplan = self._resolve(request, qplan, merged, pools)
        hits = order_hits(score_candidates(merged, self.config.weights, _window(qplan)), current)
        answerability = self.answerability(
            request.conversation_id,
            qplan,
            context,
            request.as_of,
            hits,
            pools.holder,
            request.params.get("embedding"),
        )
        answer = None
        if current and answerability.get("answerable", True):
            answer = answer_of(self.store, request.conversation_id, qplan.reading, current)
        return Ranking(
            hits=hits,
            plan=qplan,
            candidates=len(merged),
            question=qplan.reading.as_dict(),
            hops=hops,
            current=current,
            answerability=answerability,
            chain=chain,
            answer=answer,
        )

    # --- step 1: context, plan, the one round trip -------------------------------------------
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

    def _read(self, request: Request) -> tuple[ConversationContext, QueryPlan, gen.LinkedPools]:
        """Context, plan and pools. The context is read only without a cached copy, or when
        ``read/linked_read`` (which returns the conversation's write version in the same round
        trip) shows the cached copy is stale: then the plan may miss new entities, so the
        context is re-read and the question planned and read again."""
        scope = request.scope
        key = scope.key
        cached = self.contexts.get(key)
        context = cached if cached is not None else self._context(scope)
        if not scope.by_owner and scope.owner is not None and context.owner != scope.owner:
            raise ConversationNotFound(str(scope.conversation_id))  # someone else's
        qplan, pools = self._plan_and_read(request, context)
        if cached is not None and pools.context_version != cached.version:
            self.contexts.pop(key, None)
            context = self._context(request.scope)
            qplan, pools = self._plan_and_read(request, context)
        return context, qplan, pools

    def _plan_and_read(
        self, request: Request, context: ConversationContext
    ) -> tuple[QueryPlan, gen.LinkedPools]:
        """Read and plan the question against ``context`` and run the plan's `linked_read`."""
        cfg = self.config
        asker = _asker(request, context)
        reading = request.reading
        if reading is not None and (
            reading.context_version == context.version and reading.question.asker == asker
        ):
            qplan = self.planner.plan_question(reading.question)
        else:  # no reading yet, or one against a stale context: the question is read here
            qplan = self.planner.plan(
                request.query,
                entities=context.entities,
                reference=request.as_of or context.latest,
                speakers=context.speakers,
                asker=asker,
            )
        # the plan is what runs: a generator switched off has budget 0 (shown by --explain)
        qplan = qplan.model_copy(
            update={
                "budgets": {
                    name: (budget if name in cfg.generators else 0)
                    for name, budget in qplan.budgets.items()
                }
            }
        )
        pools = gen.linked_read(
            self.store,
            request.params,
            qplan,
            cfg,
            speakers=context.speakers,
            current_entity_ids=_current_ids(
                qplan,
                [
                    entity_scope(cid, context.owner or None)
                    for cid in context.conversation_ids or (request.conversation_id,)
                ],
            ),
            as_of=request.as_of,
            scope=read_scope(request, context),
            holder_k=cfg.pool_holder if persons_of(qplan, context, request.conversation_id) else 0,
            holder_conversation_ids=context.conversation_ids or (request.conversation_id,),
        )
        return qplan, pools

    # --- step 2: the pool ------------------------------------------------------------------
    def _pool(
        self,
        request: Request,
        qplan: QueryPlan,
        pools: gen.LinkedPools,
        context: ConversationContext,
    ) -> tuple[list[Candidate], list[dict[str, Any]]]:
        """The merged seeds and expansion with their best citing facts, the stateful hop's
        turns, the ``speaker`` signal on the named speakers' turns, and only turns visible at
        ``as_of``. Returns the pool and the hop's rewritten queries."""
        cfg = self.config
        merged = merge_candidates([*pools.seeds.values(), pools.expanded])
        if cfg.weights.fact != 0:
            pools.attach_fact_scores(merged)
        hops: list[dict[str, Any]] = []
        # the hop reads one conversation (off by default); an owner search does without it
        hop_on = not request.scope.by_owner and not request.filters.active
        if hop_on and "hop" in cfg.generators and qplan.budgets.get("hop", 0) > 0:
            extra, hops = gen.stateful_hop(
                self.store, request.params, qplan, merged, cfg, speakers=context.speakers
            )
            if extra:
                merged = merge_candidates([merged, extra])
                gen.citing_facts(self.store, request.params, extra, cfg)
        if qplan.speakers:  # who said it: turns of a speaker the question names
            for c in merged:
                if c.speaker in qplan.speakers:
                    c.bonus["speaker"] = 1.0
        if request.as_of is not None:  # the hop's extra turns too (linked_read filters its own)
            as_of = request.as_of
            merged = [c for c in merged if _aware(c.observed_at) <= as_of]
        return merged, hops

    # --- step 3: current values and the chain ------------------------------------------------
    def _resolve(
        self,
        request: Request,
        qplan: QueryPlan,
        merged: list[Candidate],
        pools: gen.LinkedPools,
    ) -> tuple[list[Candidate], list[dict[str, Any]], ChainResult | None, QueryPlan]:
        """Current or past values (`_resolve_state`) and the relation chain (`_chain`; only
        without ``as_of``: the walk reads current values, not values as of a moment, so the
        operator is switched off and the plan says so)."""
        current: list[dict[str, Any]] = []
        if _current_ids(qplan, request.conversation_id):
            merged, current = self._resolve_state(qplan, merged, pools)
        chain: ChainResult | None = None
        # the walk reads one conversation's current values, unfiltered: off for an owner
        # search, a filtered one, or one as of a moment, and the plan says why
        off = (
            "as_of"
            if request.as_of is not None
            else "owner"
            if request.scope.by_owner
            else "filters"
            if request.filters.active
            else None
        )
        if qplan.has("chain") and off is None:
            merged, chain = self._chain(qplan, merged, request.params)
        elif qplan.has("chain"):
            qplan = qplan.model_copy(
                update={
                    "operators": tuple(o for o in qplan.operators if o != "chain"),
                    "cues": (*qplan.cues, f"chain:off ({off})"),
                }
            )
        return merged, current, chain, qplan

    def _resolve_state(
        self, qplan: QueryPlan, pool: list[Candidate], pools: gen.LinkedPools
    ) -> tuple[list[Candidate], list[dict[str, Any]]]:
        """Current or past value per supersession key about the plan's entities
        (`resolve_state`) over the keyed facts `linked_read` returned (already restricted to
        what was visible at ``as_of``); the chosen values' turns join the pool if they are not
        in it yet."""
        rows = relevant_rows(qplan.reading, pools.keyed)
        if not rows:
            return pool, []
        by_id = {c.turn_id: c for c in pool}
        wanted = sorted({t for row in rows for t in row["cites"]} - set(by_id))
        joined = [pools.keyed_turns[t] for t in wanted if t in pools.keyed_turns]
        pools.attach_fact_scores(joined)
        by_id.update({c.turn_id: c for c in joined})
        decisions = resolve_state(
            rows,
            by_id,
            mode=qplan.state or "current",
            window=qplan.time_range,
            anchor=qplan.anchor if qplan.relation == "before" else None,
            bonus=self.config.current_bonus,
        )
        mark_answers(decisions, qplan.reading)
        return list(by_id.values()), decisions

    def _chain(
        self, qplan: QueryPlan, pool: list[Candidate], params: dict[str, Any]
    ) -> tuple[list[Candidate], ChainResult | None]:
        """Walk the plan's relation chain (`follow_chain` over the question's parse: the entity
        names once per conversation, then one round trip per hop level). Cited turns not yet in
        the pool join it (one round trip, ``read/chain_turns``) and every cited turn gets the
        ``chain`` signal (`_credit_chain`). Returns the pool unchanged and None when the walk
        finds no path."""
        cid = params["conversation_id"]
        source = self.chain_sources.get(cid)
        if source is None:
            source = self.chain_sources[cid] = StoreFactSource(self.store, cid)
        result = follow_chain(
            source,
            cid,
            qplan.reading,
            hops=self.config.chain_hops,
            versions=self.config.chain_versions,
        )
        if result.answer is None or not result.turn_ids:
            return pool, None
        by_id = {c.turn_id: c for c in pool}
        wanted = [t for t in result.turn_ids if t not in by_id]
        if wanted:
            rows = self.store.read(
                "read/chain_turns",
                conversation_id=cid,
                turn_ids=wanted,
                embedding=params["embedding"],
                sources=self.config.sources,
            )
            for row in rows:
                joined = gen.candidate(row, "chain")
                if row["fact_id"] is not None and row["fact_cosine"] is not None:
                    joined.fact_id, joined.fact_cosine = row["fact_id"], float(row["fact_cosine"])
                by_id[joined.turn_id] = joined
        _credit_chain(result, by_id)
        return list(by_id.values()), result

    # --- step 4: answerability ---------------------------------------------------------------
    def answerability(
        self,
        conversation_id: str,
        qplan: QueryPlan,
        context: ConversationContext,
        as_of: datetime | None = None,
        hits: Sequence[Hit] = (),
        holder: Sequence[Mapping[str, Any]] = (),
        vector: Sequence[float] | None = None,
    ) -> dict[str, Any]:
        """Whether memory supports ``qplan``'s question for the persons it names
        (`kgmem.retrieve.answerable.judge` on the question's key terms, then `decide` with the
        speaker gap of ``hits``, the whole ranked pool, and the holder gap of ``holder``, the
        facts nearest the question that `linked_read` returned when the question names a
        person, `LinkedPools.holder`; the support read is one round trip, cached per
        conversation when ``as_of`` is None); then the trained decision on the held facts
        (`kgmem.retrieve.answerable_model`, ``vector`` the question's embedding) may overrule
        the rules past its thresholds.

        Returns:
            ``{"answerable", "unsupported", "terms", "persons", "reason", "best_own",
            "best_other", "asked", "in_memory", "fact_rule", "speaker_gap", "holder_gap",
            "trained", "trained_fact"}`` (the last nine: the features, for calibration;
            `kgmem.retrieve.answerable.unanswerable`, `kgmem.retrieve.answerable.decide`).
        """
        persons = persons_of(qplan, context, conversation_id)
        support = self._support(conversation_id, context, as_of, read=bool(persons))
        decision = judge(qplan.reading, persons, support or Support((), frozenset()))
        gap = speaker_gap(hits, qplan.speakers, context.roles)
        ids = {entity_id for entity_id, _ in persons}
        held = holder_gap(holder, ids, speaker_person) if persons else None
        trained, trained_fact = (
            trained_support(vector, qplan.question, holder, ids, speaker_person)
            if persons
            else (None, None)
        )
        ruled = not decide(not decision.answerable, gap, held, in_memory=decision.in_memory)
        answerable = combine(ruled, trained)
        reason = decision.reason
        verdict = attribute_verdict(qplan.reading.ask, persons, support or Support((), frozenset()))
        if verdict is not None:  # the asked attribute decides where it has an opinion
            answerable, reason = verdict.answerable, verdict.reason
            decision = replace(decision, unsupported=verdict.unsupported or decision.unsupported)
        elif answerable != ruled:
            reason = (
                f"the trained decision: {trained_fact} answers the question ({trained:.2f})"
                if answerable
                else f"the trained decision: no fact the person holds answers ({trained:.2f})"
            )
        elif answerable != decision.answerable:
            who = ", ".join(decision.persons) or "the person asked about"
            reason = (
                f"what others said matches the question better than what {who} said (speaker "
                f"gap {gap:.2f})"
                if not answerable and gap is not None
                else f"{decision.reason}; but facts {who} holds match the question as well as "
                f"anyone's (holder gap {held:.2f})"
                if held is not None
                else decision.reason
            )
        return {
            "answerable": answerable,
            "unsupported": list(decision.unsupported),
            "terms": list(decision.terms),
            "persons": list(decision.persons),
            "reason": reason,
            "best_own": decision.best_own,
            "best_other": decision.best_other,
            "asked": decision.asked,
            "in_memory": decision.in_memory,
            "fact_rule": not decision.answerable,
            "speaker_gap": gap,
            "holder_gap": held,
            "trained": trained,
            "trained_fact": trained_fact,
        }

    def _support(
        self,
        conversation_id: str,
        context: ConversationContext,
        as_of: datetime | None,
        *,
        read: bool,
    ) -> Support | None:
        """What the conversation's persons said and hold (``read/person_support``; read only
        when ``read`` and not cached), cached per conversation when ``as_of`` is None until the
        conversation is written to."""
        support = context.support.get(as_of)
        if support is None and read:
            rows = self.store.read(
                "read/person_support",
                conversation_ids=list(context.conversation_ids or (conversation_id,)),
                as_of=as_of,
            )
            support = Support.from_rows(rows)
            if as_of is None:
                context.support[as_of] = support
        return support


def persons_of(
    qplan: QueryPlan, context: ConversationContext, conversation_id: str
) -> list[tuple[str, str]]:
    """``(entity id, surface)`` of the persons ``qplan``'s question is about: the person
    entities it names, then the asker where the question speaks of them ("my", "the user"),
    in every thread of ``context`` (an owner's: each thread's speaker entity)."""
    persons = [(e.id, e.surface) for e in qplan.entities if e.type == "person"]
    named = list(persons)
    for cid in context.conversation_ids or (conversation_id,):
        persons += asker_persons(entity_scope(cid, context.owner or None), qplan.reading, named)
    return persons


def read_scope(request: Request, context: ConversationContext) -> gen.ReadScope:
    """The `linked_read` scope of ``request`` in ``context``: its owner and conversations,
    and its filters' bounds (an unset filter = every speaker, session and kind of the scope)."""
    threads = context.conversation_ids or (request.conversation_id,)
    if request.filters.conversations is not None:
        wanted = set(request.filters.conversations)
        threads = tuple(c for c in threads if c in wanted)
    return gen.ReadScope(
        owner=context.owner,
        conversation_ids=threads,
        by_owner=request.scope.by_owner,
        bounds=Bounds.of(
            request.filters,
            speakers=context.speakers,
            sessions=context.sessions,
            as_of=request.as_of,
        ),
        filtered=request.filters.active,
    )


def _asker(request: Request, context: ConversationContext) -> str | None:
    """The asking speaker: ``asked_by`` (one of the conversation's speakers), else the
    conversation's ``user``.

    Raises:
        MalformedInput: ``asked_by`` is not a speaker of the conversation.
    """
    if request.asked_by is None:
        return context.user
    if request.asked_by not in context.speakers:
        raise MalformedInput(
            f"asked_by {request.asked_by!r} is not a speaker of this conversation; its "
            f"speakers are {', '.join(context.speakers)}",
            conversation_id=request.conversation_id,
        )
    return request.asked_by


def _current_ids(qplan: QueryPlan, conversation_ids: Sequence[str]) -> list[str]:
    """The entities whose keyed facts current-value resolution needs (none without a state):
    the resolved entities and the speakers the question names ("my flight": the asker), in
    each entity scope searched (``conversation_ids``: one conversation, or the owner's shared
    scope, `kgmem.store.tenant.entity_scope`)."""
    ask = qplan.reading.ask
    if qplan.state is None and (ask is None or not ask.explicit):
        return []  # an explicitly asked attribute ("what's my phone number") has a value now
    named = [(e.id, e.surface) for e in qplan.entities if e.type == "person"]
    extra = [i for cid in conversation_ids for i, _ in asker_persons(cid, qplan.reading, named)]
    return list(dict.fromkeys([*(e.id for e in qplan.entities), *extra]))


def _window(qplan: QueryPlan) -> TimeWindow:
    """The scorer's month / year / day window of the plan."""
    day = qplan.time_range
    return TimeWindow(
        year=qplan.named_year,
        month=qplan.named_month,
        day=(day.start, day.end)
        if day is not None and day.granularity in ("day", "weekend")
        else None,
    )


def _credit_chain(result: ChainResult, by_id: dict[str, Candidate]) -> None:
    """Give every turn the path's facts cite the ``chain`` signal and a trace of its hop: hop i
    of n gets ``score · i / n`` (the path's score is ``1 / (1 + cost)``), so the last hop, whose
    object is the answer, ranks first."""
    subject = result.base
    for n, hop in enumerate(result.hops, start=1):
        for turn_id in hop.cites:
            c = by_id.get(turn_id)
            if c is None:  # a turn forgotten since the fact was written
                continue
            c.generators.add("chain")
            share = result.score * n / len(result.hops)  # the answer's hop gets it all
            c.bonus["chain"] = max(c.bonus.get("chain", 0.0), share)
            c.trace.setdefault(
                "chain",
                {
                    "hop": n,
                    "subject": subject,
                    "relation": hop.relation,
                    "object": hop.object_name,
                    "fact_id": hop.fact_id,
                    "latest": hop.latest,
                },
            )
        subject = hop.object_name


def speaker_gap(
    hits: Sequence[Hit], speakers: Sequence[str], roles: Mapping[str, str] | None = None
) -> float | None:
    """The best score of a hit said by any other person than the one speaker the question
    names minus the best score (without its ``speaker`` term) of a hit said by that speaker;
    None unless exactly one speaker is named and both sides have a hit
    (`kgmem.retrieve.answerable.decide`). Speakers whose role (``roles``) is in
    `kgmem.retrieve.answerable.NOT_PERSONS` are no other person: an assistant's replies are
    not what someone else holds. Scores are the scorer's sums (unbounded; typically within
    [-1, 3]) without the ``stand_in`` term, as the gap's thresholds were chosen."""
    if len(speakers) != 1:
        return None
    own = [_matched(h) - h.terms.get("speaker", 0.0) for h in hits if h.speaker == speakers[0]]
    other = [
        _matched(h)
        for h in hits
        if h.speaker != speakers[0] and (roles or {}).get(h.speaker) not in NOT_PERSONS
    ]
    if not own or not other:
        return None
    return round(max(other) - max(own), 6)


def _matched(hit: Hit) -> float:  # the score without the turn's own text standing in
    return hit.score - hit.terms.get("stand_in", 0.0)


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
