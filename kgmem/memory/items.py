"""Keyed items over turns: the versions a key-value store (the LangGraph store,
`kgmem.adapters.langgraph`) keeps as turns of a conversation, read and written through its
own statements (``cypher/adapters/store_*``). `kgmem.api.Memory` owns one as ``items``.

An item ``key`` is stored as the turn ``<key>``, its later versions as ``<key>~2``,
``<key>~3`` (`VERSION_SEP`), each stamped with its JSON value and linked to the version it
supersedes; a put that repeats the latest version writes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from kgmem.ingest.writing.append import NewTurn
from kgmem.memory.writer import Writer
from kgmem.models import TurnRecord
from kgmem.store import Store, Transaction

__all__ = ["VERSION_SEP", "ItemPut", "KeyedItems", "same_item"]

#: separator of a key's later versions' local ids: ``home``, ``home~2``, ``home~3``
VERSION_SEP = "~"


class KeyedItems:
    """Reads and appends item versions of one store; an append runs through ``writer``
    (validation, embedding, facts, the conversation's lock)."""

    def __init__(self, store: Store, writer: Writer) -> None:
        self.store = store
        self.writer = writer

    def versions(self, conversation_id: str, key: str) -> list[dict[str, Any]]:
        """Every stored version of ``key``, oldest first (``adapters/store_versions`` rows)."""
        return self.store.read("adapters/store_versions", conversation_id=conversation_id, key=key)

    def latest(self, conversation_ids: Sequence[str], limit: int) -> list[dict[str, Any]]:
        """The latest version of every key of these conversations, at most ``limit``
        (``adapters/store_latest`` rows)."""
        return self.store.read(
            "adapters/store_latest", conversation_ids=list(conversation_ids), limit=limit
        )

    def of_turns(self, conversation_id: str, turn_ids: Sequence[str]) -> list[dict[str, Any]]:
        """The item each of these turns holds (``adapters/store_items`` rows: key, value,
        times, ``superseded``, ``searchable``)."""
        return self.store.read(
            "adapters/store_items", conversation_id=conversation_id, turn_ids=list(turn_ids)
        )

    def put(self, put: ItemPut, owner: str | None = None) -> None:
        """Append ``put``'s next version (nothing when the content is unchanged); the versions
        are read, the local id chosen and the new turn linked to the one it supersedes inside
        the append's locked transaction, so concurrent puts of one key queue. A put never
        deletes: memory requests are not looked for in stored items."""
        self.writer._add_turns(
            put.conversation_id,
            [{"id": put.key, "speaker": put.speaker, "text": put.text}],
            requests=False,
            hook=put,
            owner=owner,
        )


@dataclass
class ItemPut:
    """One checked put, and the `kgmem.ingest.pipeline.AppendHook` that writes it: ``prepare``
    reads the key's versions under the conversation's lock and returns the turn to append (none
    when the content is unchanged), ``finish`` stamps it and links it to the version it
    supersedes, in the same transaction. No state survives a retried attempt but `previous`,
    which ``prepare`` sets again."""

    conversation_id: str
    key: str
    text: str
    speaker: str
    value_json: str
    searchable: bool
    previous: str | None = None

    def prepare(self, tx: Transaction, turns: Sequence[NewTurn]) -> Sequence[NewTurn]:
        cid, key = self.conversation_id, self.key
        versions = tx.run("adapters/store_versions", conversation_id=cid, key=key)
        latest = versions[-1] if versions else None
        self.previous = latest["turn_id"] if latest is not None else None
        if latest is not None and same_item(latest, self.text, self.speaker, self.value_json):
            return []  # the same content again changes nothing
        local = key
        if latest is not None:  # the first free ``key~n`` (n > count), skipping other keys' ids
            n = len(versions) + 1
            while tx.run(
                "read/existing_turn_ids",
                conversation_id=cid,
                turn_ids=[f"{cid}:{key}{VERSION_SEP}{n}"],
            ):
                n += 1
            local = f"{key}{VERSION_SEP}{n}"
        return [replace(turn, id=local) for turn in turns]

    def finish(self, tx: Transaction, records: Sequence[TurnRecord]) -> None:
        for record in records:
            tx.run(
                "adapters/store_mark",
                conversation_id=self.conversation_id,
                turn_id=record.id,
                key=self.key,
                value=self.value_json,
                searchable=self.searchable,
                supersedes=self.previous,
            )


def same_item(previous: Mapping[str, Any], text: str, speaker: str, value_json: str) -> bool:
    """Whether a put repeats the latest stored version (its JSON value, or its turn's text and
    speaker for a turn written another way)."""
    if previous.get("value") is not None:
        return bool(previous["value"] == value_json)
    return bool(previous["text"] == text and previous["speaker"] == speaker)
