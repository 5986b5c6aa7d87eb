"""The request resolved once (`kgmem.retrieve.request_read`) and the question's views read from
its tokens (`kgmem.retrieve.question.Question`): pure, no server."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from kgmem.errors import MalformedInput
from kgmem.retrieve.answerable import speaker_person
from kgmem.retrieve.context import ConversationContext
from kgmem.retrieve.names import EntityIndex
from kgmem.retrieve.plan import Planner
from kgmem.retrieve.question import read_question
from kgmem.retrieve.request_read import resolve_request
from kgmem.retrieve.retriever import Reading, Request
from kgmem.retrieve.scope import Scope, SearchFilters
from kgmem.store.tenant import entity_scope

INDEX = EntityIndex([("Ana", "c:e:person:ana", "person"), ("Lisbon", "c:e:place:lisbon", "place")])
LATEST = datetime(2024, 5, 1, tzinfo=UTC)


def _request(query: str, context: ConversationContext, **kw: object) -> Request:
    question = read_question(
        query,
        entities=context.entities,
        reference=context.latest,
        speakers=context.speakers,
        asker=context.user,
    )
    fields = {
        "query": query,
        "conversation_id": "c",
        "k": 10,
        "as_of": None,
        "asked_by": None,
        "params": {"conversation_id": "c", "embedding": [0.0]},
        "scope": Scope(conversation_id="c"),
        "filters": SearchFilters(),
        "reading": Reading(question, context.version),
    }
    return Request(**(fields | kw))  # type: ignore[arg-type]


def _context(**kw: object) -> ConversationContext:
    base = ConversationContext(
        speakers=("Ana", "Bo"),
        latest=LATEST,
        entities=INDEX,
        version="v1",
        roles={"Bo": "user"},
        sessions=(1, 2),
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def test_the_request_is_resolved_once_for_every_stage() -> None:
    context = _context()
    read = resolve_request(
        _request("Where do I live now, and where did Ana live?", context),
        context,
        Planner(),
        frozenset({"dense_turns", "fulltext"}),
    )
    assert read.conversation_ids == ("c",) and read.entity_scopes == ("c",)
    # the person Ana is named; the asker Bo ("I") is a person of the conversation's scope
    assert read.persons == (("c:e:person:ana", "Ana"), (speaker_person("c", "Bo"), "Bo"))
    assert read.current_ids == ("c:e:person:ana", speaker_person("c", "Bo"))
    assert read.resolves_current and read.chain_off is None
    # a generator the configuration leaves out runs with budget 0
    assert {n for n, b in read.plan.budgets.items() if b} <= {"dense_turns", "fulltext"}
    assert read.scope.conversation_ids == ("c",) and not read.scope.by_owner


def test_an_owned_thread_resolves_persons_in_the_owner_scope() -> None:
    context = _context(owner="acme", conversation_ids=("c", "d"))
    read = resolve_request(
        _request("What is my phone number?", context), context, Planner(), frozenset({"x"})
    )
    scope = entity_scope("c", "acme")
    assert read.entity_scopes == (scope, scope)
    assert read.persons == ((speaker_person(scope, "Bo"), "Bo"),) * 2


def test_the_chain_is_off_for_a_moment_or_a_filter() -> None:
    context = _context()
    asked = _request("Who is Ana?", context, as_of=LATEST)
    assert resolve_request(asked, context, Planner(), ()).chain_off == "as_of"
    filtered = _request("Who is Ana?", context, filters=SearchFilters(speakers=["Ana"]))
    assert resolve_request(filtered, context, Planner(), ()).chain_off == "filters"


def test_an_asker_who_is_no_speaker_is_refused() -> None:
    context = _context()
    with pytest.raises(MalformedInput):
        resolve_request(_request("Who am I?", context, asked_by="Zed"), context, Planner(), ())


def test_the_views_are_read_from_the_tokens() -> None:
    q = read_question("Does my_config set the Lisbon flights' timeouts?")
    assert "my_config" in q.tokens  # a word with an underscore is one, as Lucene keeps it
    assert "my_config" in q.bm25_words and "flights" in q.bm25_words
    assert {"timeout", "timeouts", "flight"} <= q.state_words
    # the views read the record's tokens, not the string again
    other = replace(q, tokens=("only", "these"))
    assert other.bm25_words == ("only", "these") and other.state_words >= {"only", "these"}
