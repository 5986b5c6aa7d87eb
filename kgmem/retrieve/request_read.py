"""A search request resolved once against its conversation context: the one record the linked
retriever's stages read instead of the request (`kgmem.retrieve.linked`).

Resolving it answers, once, what every stage used to ask the request and the context again:
the conversations searched and their entity scopes (`kgmem.store.tenant.entity_scope`), the
persons the question is about (the person entities it names, then the asking speakers as
entities of each scope, `kgmem.retrieve.answerable.asker_persons`), the entities whose current
values are resolved, the `linked_read` scope and the plan that runs. Nothing here reads the
store.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kgmem.errors import MalformedInput
from kgmem.retrieve.answerable import asker_persons
from kgmem.retrieve.context import ConversationContext
from kgmem.retrieve.generators import ReadScope
from kgmem.retrieve.plan import Planner, QueryPlan
from kgmem.retrieve.retriever import Request
from kgmem.retrieve.scope import Bounds
from kgmem.retrieve.score import TimeWindow
from kgmem.store.tenant import entity_scope

__all__ = ["RequestRead", "asker_of", "plan_of", "resolve_request"]


@dataclass(frozen=True)
class RequestRead:
    """One request resolved against its context (module docstring). Frozen.

    Attributes:
        conversation_id: the conversation searched ('' for an owner search).
        params: ``conversation_id`` and ``embedding`` (the query vector as a list of floats),
            the parameters every read statement shares.
        as_of: the moment of asking (timezone-aware) or None.
        by_owner: an owner-wide search.
        filtered: a caller's search filter is set.
        context: the conversation (or owner) context the question was read against.
        plan: the plan that runs (a generator switched off has budget 0).
        conversation_ids: the conversations of the context (one, or all of an owner's).
        entity_scopes: each conversation's entity scope, in ``conversation_ids`` order.
        persons: ``(entity id, surface)`` of the persons the question is about: the person
            entities it names, then the speakers it names as entities of each scope.
        current_ids: the entity ids whose keyed facts current-value resolution needs (empty
            unless the question asks for a state or explicitly for an attribute).
        scope: the `linked_read` scope (owner, conversations after the filter, bounds).
        window: the scorer's year / month / day window of the plan.
    """

    conversation_id: str
    params: dict[str, Any]
    as_of: datetime | None
    by_owner: bool
    filtered: bool
    context: ConversationContext
    plan: QueryPlan
    conversation_ids: tuple[str, ...]
    entity_scopes: tuple[str, ...]
    persons: tuple[tuple[str, str], ...]
    current_ids: tuple[str, ...]
    scope: ReadScope
    window: TimeWindow

    @property
    def embedding(self) -> list[float] | None:
        """The query vector (``params["embedding"]``)."""
        return self.params.get("embedding")

    @property
    def resolves_current(self) -> bool:
        """Whether current values are resolved: some entity needs them, and an owner search
        (no conversation id) resolves only the entities the question names (its asking
        speakers' keyed facts are read, not resolved: as the engine has always done)."""
        return bool(self.current_ids) and (bool(self.conversation_id) or bool(self.plan.entities))

    @property
    def chain_off(self) -> str | None:
        """Why the relation chain is not walked (``as_of``, ``owner``, ``filters``), or None:
        the walk reads one conversation's current values, unfiltered."""
        if self.as_of is not None:
            return "as_of"
        if self.by_owner:
            return "owner"
        return "filters" if self.filtered else None


def asker_of(request: Request, context: ConversationContext) -> str | None:
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


def plan_of(
    request: Request,
    context: ConversationContext,
    planner: Planner,
    generators: Collection[str],
) -> QueryPlan:
    """The plan that runs: the question as `kgmem.retrieve.retriever.Retriever.reading` read it
    against this context (read here when there is no reading, or one against a stale
    context), a generator not in ``generators`` at budget 0 (shown by --explain).

    Raises:
        MalformedInput: ``asked_by`` is not a speaker of the conversation.
    """
    asker = asker_of(request, context)
    reading = request.reading
    if reading is not None and (
        reading.context_version == context.version and reading.question.asker == asker
    ):
        qplan = planner.plan_question(reading.question)
    else:
        qplan = planner.plan(
            request.query,
            entities=context.entities,
            reference=request.as_of or context.latest,
            speakers=context.speakers,
            asker=asker,
        )
    budgets = {name: (b if name in generators else 0) for name, b in qplan.budgets.items()}
    return qplan.model_copy(update={"budgets": budgets})


def resolve_request(
    request: Request,
    context: ConversationContext,
    planner: Planner,
    generators: Collection[str],
) -> RequestRead:
    """``request`` resolved against ``context`` (module docstring), planned by ``planner``.

    Raises:
        MalformedInput: ``asked_by`` is not a speaker of the conversation.
    """
    qplan = plan_of(request, context, planner, generators)
    threads = context.conversation_ids or (request.conversation_id,)
    scopes = tuple(entity_scope(cid, context.owner or None) for cid in threads)
    named = [(e.id, e.surface) for e in qplan.entities if e.type == "person"]
    askers = [p for s in scopes for p in asker_persons(s, qplan.reading, named)]
    ask = qplan.reading.ask
    current: tuple[str, ...] = ()
    if qplan.state is not None or (ask is not None and ask.explicit):
        # an explicitly asked attribute ("what's my phone number") has a value now
        current = tuple(dict.fromkeys([*(e.id for e in qplan.entities), *(i for i, _ in askers)]))
    searched = threads
    day = qplan.time_range  # the scorer's day window: a day or a weekend the question names
    if request.filters.conversations is not None:
        wanted = set(request.filters.conversations)
        searched = tuple(c for c in threads if c in wanted)
    return RequestRead(
        conversation_id=request.conversation_id,
        params=request.params,
        as_of=request.as_of,
        by_owner=request.scope.by_owner,
        filtered=request.filters.active,
        context=context,
        plan=qplan,
        conversation_ids=tuple(threads),
        entity_scopes=scopes,
        persons=(*named, *askers),
        current_ids=current,
        scope=ReadScope(
            owner=context.owner,
            conversation_ids=searched,
            by_owner=request.scope.by_owner,
            bounds=Bounds.of(
                request.filters,
                speakers=context.speakers,
                sessions=context.sessions,
                as_of=request.as_of,
            ),
            filtered=request.filters.active,
        ),
        window=TimeWindow(
            year=qplan.named_year,
            month=qplan.named_month,
            day=(day.start, day.end)
            if day is not None and day.granularity in ("day", "weekend")
            else None,
        ),
    )
