"""What memory holds about an entity and over time: chains over current values, a relation's
history and current value, an entity's profile, the timeline (`kgmem.api.Memory` delegates
here)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from kgmem.errors import ConversationNotFound, MalformedInput
from kgmem.ids import checks_ids
from kgmem.memory.caches import ReadCaches
from kgmem.memory.owners import Owners
from kgmem.retrieve.chain import ChainResult, StoreFactSource, follow_chain
from kgmem.retrieve.question import read_question
from kgmem.retrieve.scope import Scope
from kgmem.store import Store
from kgmem.store.tenant import key_holder

__all__ = ["Facts"]


def _aware(value: Any) -> datetime | None:
    if not isinstance(value, datetime):
        return None
    return value if value.utcoffset() is not None else value.replace(tzinfo=UTC)


class Facts:
    """The fact and timeline methods of `kgmem.api.Memory`: reads of facts by supersession
    key, entity and owner over one store.

    Args:
        store: the Neo4j seam.
        owners: an owner's conversations, for owner-wide reads.
        caches: holds the chain fact source of each conversation (dropped by writes).
    """

    def __init__(self, store: Store, owners: Owners, caches: ReadCaches) -> None:
        self.store = store
        self.owners = owners
        self.caches = caches

    @checks_ids
    def chain(self, question: str, conversation_id: str) -> ChainResult:
        """Answer a chain question ("the country of citizenship of the spouse of X") by following
        relations of `kgmem.lexicon` from the entity it names, over current values.

        Args:
            question: any text, read once (`kgmem.retrieve.question.read_question`); the walk
                follows its chain parse (`Question.walk`).
            conversation_id: the conversation (others are never read).

        Returns:
            a `ChainResult`: the answer (the last hop's object) or None, and every hop with its
            fact, serial, whether it was the current value, and the turns it cites.
        """
        source = self.caches.chain_sources.get(conversation_id)
        if source is None:
            source = self.caches.chain_sources[conversation_id] = StoreFactSource(
                self.store, conversation_id
            )
        return follow_chain(source, conversation_id, read_question(question))

    def _keys(self, conversation_id: str, entity: str, relation: str) -> list[str]:
        from kgmem.ingest.extraction.supersession import relation_family

        family = relation_family(relation) or relation.strip().lower().replace(" ", "_")
        rows = self.store.read("read/resolve_entity", conversation_id=conversation_id, name=entity)
        subjects = [row["id"] for row in rows] + [entity]
        return [f"{key_holder(subject)}|{family}" for subject in dict.fromkeys(subjects)]

    @checks_ids
    def history(
        self,
        conversation_id: str | None,
        entity: str,
        relation: str,
        *,
        owner: str | None = None,
    ) -> list[dict[str, Any]]:
        """Every value a single-valued relation has had, oldest first (nothing is ever deleted).

        With ``owner`` (and no conversation), the values of every conversation of the owner,
        oldest first by ``valid_from`` (then by conversation and serial): one person's values
        across threads, the last one current. Each row then names its ``conversation_id``.

        Args:
            conversation_id: the tenant (None with ``owner``).
            entity: a canonical name or alias (``"Mel"`` finds Melanie) or an entity id.
            relation: a relation (``live_in``) or its family (``residence``); see
                `kgmem.ingest.extraction.supersession.SINGLE_VALUED`.

        Returns:
            fact dicts (id, text, serial, valid_from, valid_to, supersedes, superseded_by,
            cites) ordered by serial; the last one is the current value.
        """
        if conversation_id is None:
            if owner is None:
                raise MalformedInput("history needs a conversation id or an owner")
            rows: list[dict[str, Any]] = []
            for cid in self.owners.owner_conversations(owner):
                rows += [r | {"conversation_id": cid} for r in self.history(cid, entity, relation)]
            never = datetime.min.replace(tzinfo=UTC)
            return sorted(
                rows,
                key=lambda r: (
                    _aware(r.get("valid_from")) or never,
                    r["conversation_id"],
                    r["serial"],
                ),
            )
        keys = self._keys(conversation_id, entity, relation)
        return self.store.read("read/facts_by_key", conversation_id=conversation_id, keys=keys)

    @checks_ids
    def current(
        self,
        conversation_id: str | None,
        entity: str,
        relation: str,
        *,
        owner: str | None = None,
    ) -> dict[str, Any] | None:
        """The current value: the latest ``serial`` on the supersession key (decided in code);
        with ``owner``, the latest across the owner's conversations (see `history`).

        Returns None when memory holds no value. See `history` for the arguments.
        """
        rows = self.history(conversation_id, entity, relation, owner=owner)
        return rows[-1] if rows else None

    @checks_ids
    def profile(
        self,
        conversation_id: str | None,
        entity: str,
        *,
        history: bool = False,
        owner: str | None = None,
    ) -> dict[str, list[dict[str, Any]]]:
        """Every current attribute value of an entity, grouped by attribute
        (docs/attributes.md).

        Args:
            conversation_id: the tenant; None with ``owner`` = every conversation of the owner.
            entity: a canonical name or alias (``"Mel"`` finds Melanie) or an entity id.
            history: add superseded values (``current`` False, ``valid_to`` set).
            owner: the owner (docs/scopes-and-filters.md): alone, the profile gathers the
                entity's values from all of the owner's conversations (each value names its
                ``conversation_id``; which value is current is decided across the owner's
                threads, `kgmem.ingest.writing.threads`); with ``conversation_id``, the owner that
                conversation must have.

        Returns:
            attribute id → value dicts in arrival order: ``value``, ``value_type``, ``thing``,
            ``multiplicity``, ``modality`` (``negated`` for a retraction), ``valid_from`` /
            ``valid_to`` (ISO 8601 or None), ``current``, ``fact_id``, ``text``, ``key``,
            ``cites`` (turn ids, the evidence) and ``conversation_id``. Empty when the entity
            holds no listed attribute value, is unknown, or the owner has no conversations.

        Raises:
            MalformedInput: neither a conversation nor an owner, or an empty owner.
            ConversationNotFound: the conversation belongs to another owner than ``owner``.
        """
        Scope(conversation_id=conversation_id, owner=owner)  # checked
        if conversation_id is not None:
            if owner is not None and self.owners.owner_of(conversation_id) != owner:
                raise ConversationNotFound(conversation_id)
            cids = [conversation_id]
        else:
            assert owner is not None
            cids = self.owners.owner_conversations(owner)
        ids: list[str] = []
        for cid in cids:  # a thread may still hold entities of its own (an older store)
            rows = self.store.read("read/resolve_entity", conversation_id=cid, name=entity)
            ids += [row["id"] for row in rows]
        out: dict[str, list[dict[str, Any]]] = {}
        if not cids:
            return out
        for row in self.store.read(
            "read/entity_profile",
            conversation_ids=cids,
            entity_ids=list(dict.fromkeys([*ids, entity])),
            history=history,
        ):
            value = dict(row)
            out.setdefault(str(value.pop("attribute")), []).append(value)
        return out

    @checks_ids
    def timeline(
        self, conversation_id: str | None = None, *, owner: str | None = None
    ) -> list[dict[str, Any]]:
        """What memory holds, as a map: one entry per session of each conversation (chat and
        fact-list turns) and per document, oldest first.

        Returns:
            ``{"conversation_id", "kind": "session" | "document", "session", "source", "first",
            "last", "turns"}`` dicts (``first`` / ``last``: observed datetimes, UTC;
            ``source``: a document's file, the part of its turns' ``source`` before ``#``).

        Raises:
            MalformedInput: neither a conversation nor an owner, or an empty owner.
        """
        Scope(conversation_id=conversation_id, owner=owner)  # checked
        if conversation_id is not None:
            cids = [conversation_id]
        else:
            assert owner is not None
            cids = self.owners.owner_conversations(owner)
        return self.store.read("read/timeline", conversation_ids=cids)
