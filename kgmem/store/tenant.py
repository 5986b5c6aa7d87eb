"""Tenant tokens: how a shared Lucene fulltext index is scoped to one conversation.

Neo4j's fulltext indexes cannot filter by a property inside the index, and reading a global
top-N and then filtering by tenant silently drops a tenant's hits once other tenants share its
words. So every `Turn` and `Fact` carries ``tk``, a token derived from its ``conversation_id``
and indexed beside the text; a query ``+tk:<token> +text:(...)`` returns only that tenant's
nodes, and every one of them is eligible. The tenant clause has boost 0 (``+tk:<token>^0``):
it filters without adding to the BM25 score, so scores equal those of the text clause alone
(term statistics are still index-wide; `kgmem bench scale` measures what that changes).

A conversation that belongs to an owner also carries the owner's token in ``tk`` (two tokens,
space-separated: the analyzer splits them), so ``+tk:<owner token>^0`` scopes a query to all
of the owner's conversations in one Lucene filter. The owner token hashes ``owner\x00<id>``,
another input space than conversation ids, so an owner named like a conversation gets another
token.

The token is decimal digits only: Lucene's english analyzer (standard tokenizer, lower-casing,
stop words, Porter stemming) keeps such a token whole and unchanged, which a word or an id with
punctuation would not survive.
"""

from __future__ import annotations

import hashlib
import re

__all__ = [
    "OWNER_SCOPE",
    "entity_scope",
    "key_holder",
    "lucene_escape",
    "owner_token",
    "scope_query",
    "tenant_query",
    "tenant_token",
]

OWNER_SCOPE = "owner:"
"""Prefix of an owner's entity scope (`entity_scope`)."""


def entity_scope(conversation_id: str, owner: str | None) -> str:
    """The scope an entity of ``conversation_id`` lives in (its node's ``conversation_id`` and
    its id's prefix): ``owner:<owner>`` for an owned conversation, whose entities all of the
    owner's threads share (`kgmem.ingest.writing.threads`), else the conversation id itself. A
    conversation id never holds ``:``, so a scope never equals one."""
    return f"{OWNER_SCOPE}{owner}" if owner else conversation_id


def _token(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
    return str(int.from_bytes(digest[:8], "big"))


def tenant_token(conversation_id: str) -> str:
    """The fulltext token of a conversation: the first 64 bits of SHA-256 of its UTF-8 id, as
    a decimal string of 1-20 digits (collision odds about 2^-64 per pair of tenants)."""
    return _token(conversation_id)


def owner_token(owner: str) -> str:
    """The fulltext token of an owner: like `tenant_token`, of ``owner\x00<owner>``."""
    return _token(f"owner\x00{owner}")


_SPECIAL = frozenset('+-&|!(){}[]^"~*?:\\/')


def lucene_escape(word: str) -> str:
    """``word`` with every Lucene query-syntax character backslash-escaped."""
    return "".join("\\" + ch if ch in _SPECIAL else ch for ch in word)


def tenant_query(conversation_id: str, words: list[str]) -> str | None:
    """The Lucene query for ``words`` (OR-ed, escaped) inside one tenant, e.g.
    ``+tk:8122…^0 +text:(support group)``; None without words."""
    return scope_query(tenant_token(conversation_id), words)


def scope_query(token: str, words: list[str]) -> str | None:
    """The Lucene query for ``words`` (OR-ed, escaped) inside the scope whose token is
    ``token`` (a `tenant_token` or an `owner_token`); None without words."""
    if not words:
        return None
    text = " ".join(lucene_escape(w) for w in words)
    return f"+tk:{token}^0 +text:({text})"


_SCOPED_ID = re.compile(r"^(?P<scope>.+):e:(?P<rest>[a-z]+:.*)$", re.DOTALL)


def key_holder(subject: str) -> str:
    """The holder part of a supersession key: an entity id keeps its scope (the conversation id
    or ``owner:<id>``, exact as given: ids are case-sensitive) and case-folds the rest; a plain
    name is stripped and case-folded. ``"Chat-A:e:person:Ana"`` -> ``"Chat-A:e:person:ana"``."""
    subject = subject.strip()
    m = _SCOPED_ID.match(subject)
    if m is None:
        return subject.casefold()
    return f"{m['scope']}:e:{m['rest'].casefold()}"
