"""Role resolution on the read path against a real Neo4j: in a chat between ``user`` and
``assistant``, "my" means the user; ``asked_by`` names another asker; a chat between named
people is unaffected."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator

import pytest

from kgmem import Memory, Settings
from kgmem.errors import MalformedInput
from kgmem.ingest.loaders.chat import parse_chat_conversation


@pytest.fixture(scope="module")
def memory(settings: Settings) -> Iterator[Memory]:
    with Memory.from_settings(settings) as m:
        yield m


@pytest.fixture(scope="module")
def cid(memory: Memory) -> Iterator[str]:
    name = f"roles-{uuid.uuid4().hex[:10]}"
    turns = [
        ("user", "My dog is called Biscuit and he loves the beach."),
        ("assistant", "Lovely! My favourite dog name is Storm, for a husky."),
        ("user", "I live in Porto these days."),
        ("assistant", "Porto is a beautiful city with great food."),
    ]
    memory.add_conversation(
        parse_chat_conversation(
            {
                "conversation_id": name,
                "sessions": [
                    {
                        "started_at": "2024-05-08T12:00:00Z",
                        "turns": [{"speaker": s, "text": t} for s, t in turns],
                    }
                ],
            }
        ),
        facts="none",
    )
    yield name
    with contextlib.suppress(Exception):
        memory.forget(name)


def test_my_means_the_user(memory: Memory, cid: str) -> None:
    result = memory.search("What is my dog called?", cid, 4)
    assert result.question["asker"] == "user"
    assert result.plan["speakers"] == ["user"] == result.question["speakers"]
    assert result.plan["budgets"]["speaker"] > 0
    top = result.hits[0]
    assert top.text.startswith("My dog is called Biscuit") and top.speaker == "user"
    assert top.terms["speaker"] > 0
    assert all("speaker" not in h.terms for h in result.hits if h.speaker != "user")


def test_asked_by_names_the_asker(memory: Memory, cid: str) -> None:
    result = memory.search("What is my favourite dog name?", cid, 4, asked_by="assistant")
    assert result.question["asker"] == "assistant"
    assert result.plan["speakers"] == ["assistant"]
    assert result.hits[0].speaker == "assistant"
    with pytest.raises(MalformedInput, match="not a speaker"):
        memory.search("What is my dog called?", cid, 4, asked_by="Priya")


def test_without_first_person_the_user_is_not_named(memory: Memory, cid: str) -> None:
    result = memory.search("Which city has great food?", cid, 4)
    assert result.question["asker"] == "user" and result.plan["speakers"] == []
