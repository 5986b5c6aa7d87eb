"""A search an agent can steer: pages, an exact phrase, a speaker named in any case, a time
range, a session and a token budget, over `kgmem.api.Memory.search`. What the MCP tool
``search_memory`` and the HTTP ``POST /search`` both call (docs/search-options.md).

Few options, each optional: on LoCoMo a published agent-memory study measured that a wide
search schema costs an agent accuracy, and that a name filter matching only the exact case
returned nothing for most filtered calls. So names of speakers match case- and
accent-insensitively (``"ana"`` and ``"Ána"`` find ``Ana``) and an unknown name is said in the
result (``unknown_names``) instead of returning nothing silently; ids (conversations, owners)
stay exact (`kgmem.ids`).

Pages. A cursor is opaque: an HMAC-signed record of the query, the filters, the scope, the
memory's write versions when it was issued and the turns already returned (short digests).
The next page is the best turns of the same search that were not returned yet, so a page never
repeats a turn and never skips one that ranks above it. A cursor that was altered or signed by
another secret is ``forged``; one for another query, filters or scope ``mismatched``; one
issued before memory changed (a turn written or forgotten in a searched conversation)
``stale``: all `kgmem.errors.InvalidCursor`, and the caller searches again from page 1. Pages
reach at most `MAX_DEPTH` turns deep.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from kgmem.api import check_query
from kgmem.config import DEFAULT_K
from kgmem.cursors import CursorCodec, digest
from kgmem.errors import ConversationNotFound, InvalidCursor, MalformedInput, OwnerNotFound
from kgmem.ids import check_id
from kgmem.metadata_search import keep_matching, where_binding
from kgmem.models import Hit

if TYPE_CHECKING:
    from kgmem.api import Memory

__all__ = [
    "MAX_DEPTH",
    "MAX_EXACT_POOL",
    "MAX_K",
    "Options",
    "Page",
    "PageHit",
    "fold_name",
    "steered_search",
]

#: hits per page at most (a page is what an agent reads in one step; default `DEFAULT_K`)
MAX_K = 50
#: the deepest rank a cursor reaches (pages of 10: 20 pages)
MAX_DEPTH = 200
#: the most turns an ``exact`` search ranks (the phrase's earliest matches in the scope)
MAX_EXACT_POOL = 500
#: the longest ``exact`` phrase and speaker name, in characters
MAX_PHRASE_CHARS = 500
#: the largest ``max_tokens`` budget
MAX_TOKENS = 100_000


def fold_name(name: str) -> str:
    """A name's comparison key: accents removed (NFKD, combining marks dropped), case folded,
    inner whitespace collapsed (``"  Ána  María "`` → ``"ana maria"``)."""
    decomposed = unicodedata.normalize("NFKD", name)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(bare.casefold().split())


@dataclass(frozen=True)
class Options:
    """The steering options of one search (all optional).

    Attributes:
        k: hits per page, 1-`MAX_K` (default `DEFAULT_K`).
        cursor: the ``next_cursor`` of the previous page of the same search.
        exact: a phrase or identifier the turn's text must hold (case-insensitive substring;
            up to `MAX_PHRASE_CHARS` characters).
        speaker: only turns said by this speaker (case- and accent-insensitive).
        since / until: only turns said in this range (inclusive; dates or datetimes, naive =
            UTC; a date as ``until`` means the end of that day).
        session: only turns of this session number (>= 1).
        max_tokens: trim the page to this many tokens of hit text, counted with the
            embedder's tokenizer (1-`MAX_TOKENS`).
        where: only turns whose metadata passes this filter (`kgmem.metadata.check_where`).
    """

    k: int = DEFAULT_K
    cursor: str | None = None
    exact: str | None = None
    speaker: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    session: int | None = None
    max_tokens: int | None = None
    where: Mapping[str, Any] | None = None

    def check(self) -> Options:
        """``self`` if every option is in range.

        Raises:
            MalformedInput: an option out of range, naming it.
        """
        if isinstance(self.k, bool) or not isinstance(self.k, int) or not 1 <= self.k <= MAX_K:
            raise MalformedInput(f"k must be an integer from 1 to {MAX_K}", argument="k")
        for name in ("exact", "speaker"):
            value = getattr(self, name)
            if value is not None and (
                not isinstance(value, str) or not value.strip() or len(value) > MAX_PHRASE_CHARS
            ):
                raise MalformedInput(
                    f"{name} must be a non-empty string of at most {MAX_PHRASE_CHARS} characters",
                    argument=name,
                )
            if isinstance(value, str):
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError:
                    raise MalformedInput(f"{name} is not valid Unicode", argument=name) from None
        if self.session is not None and (
            isinstance(self.session, bool) or not isinstance(self.session, int) or self.session < 1
        ):
            raise MalformedInput("session must be an integer >= 1", argument="session")
        if self.max_tokens is not None and (
            isinstance(self.max_tokens, bool)
            or not isinstance(self.max_tokens, int)
            or not 1 <= self.max_tokens <= MAX_TOKENS
        ):
            raise MalformedInput(
                f"max_tokens must be an integer from 1 to {MAX_TOKENS}", argument="max_tokens"
            )
        if self.since is not None and self.until is not None and self.since > self.until:
            raise MalformedInput("since is after until", argument="since")
        if self.cursor is not None and (
            not isinstance(self.cursor, str) or len(self.cursor) > 8192
        ):
            raise InvalidCursor("the cursor is not one this service issued", reason="forged")
        where_binding(self.where)
        return self

    def binding(self) -> dict[str, Any]:
        """What a cursor is bound to besides the query and scope (everything but ``k``,
        ``cursor`` and ``max_tokens``, which may change from page to page)."""
        return {
            "exact": self.exact,
            "speaker": fold_name(self.speaker) if self.speaker else None,
            "since": self.since.isoformat() if self.since else None,
            "until": self.until.isoformat() if self.until else None,
            "session": self.session,
            "where": where_binding(self.where),
        }


@dataclass
class PageHit:
    """One hit of a page: the turn, where and when it was said, and why it is here."""

    turn_id: str
    conversation_id: str
    session: int
    date: str
    observed_at: str
    speaker: str
    text: str
    score: float
    why: str
    event_date: str | None = None
    source: str | None = None
    tokens: int | None = None
    passage: dict[str, int] | None = None
    """For a long turn, the passage that matched best: ``{"start", "end"}``, character offsets
    into ``text`` (`kgmem.models.Hit.passage`); None for a turn that is one passage."""
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class Page:
    """One page of a steered search.

    Attributes:
        hits: best first, at most ``k``.
        next_cursor: pass it back for the next page; None when there is none (fewer turns
            than asked, or `MAX_DEPTH` reached).
        unknown_names: names of the options (``speaker``) that name nothing in the searched
            memory; the page is then empty.
        speakers: with an unknown speaker, the speakers the memory holds (to choose from).
        omitted: hits left out by ``max_tokens`` (they open the next page).
        omitted_tokens: their tokens.
        tokens: tokens of the hits returned (with ``max_tokens``).
        rank: how many hits earlier pages returned.
        answerable / unsupported / answer / instructions / conflicts / order: as
            `kgmem.retrieve.retriever.SearchResult` (instructions, conflicts and the answer on
            the first page only).
        notes: one line per thing the caller should know (an unknown name, a trimmed page).
    """

    query: str
    k: int
    hits: list[PageHit]
    next_cursor: str | None = None
    unknown_names: list[str] = field(default_factory=list)
    speakers: list[str] = field(default_factory=list)
    omitted: int = 0
    omitted_tokens: int = 0
    tokens: int | None = None
    rank: int = 0
    answerable: bool = True
    unsupported: list[str] = field(default_factory=list)
    answer: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    instructions: list[dict[str, Any]] = field(default_factory=list)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    order: str = "relevance"


#: the default codec of a process (a service passes its own, configured one)
_CODEC = CursorCodec()


def steered_search(
    memory: Memory,
    query: str,
    *,
    conversation_id: str | None = None,
    owner: str | None = None,
    options: Options | None = None,
    codec: CursorCodec | None = None,
) -> Page:
    """One page of a steered search of one conversation or an owner's conversations.

    Args:
        memory: the memory to search.
        query: a question or any text (as `kgmem.api.Memory.search`).
        conversation_id / owner: the scope (as `kgmem.api.Memory.search`).
        options: the steering options (`Options`).
        codec: signs cursors (default: this process's).

    Returns:
        a `Page`.

    Raises:
        MalformedInput: an option out of range (naming it), or what `Memory.search` raises.
        InvalidCursor: a forged, mismatched or stale cursor.
        ConversationNotFound: as `Memory.search`.
    """
    options = (options or Options()).check()
    codec = codec or _CODEC
    if conversation_id is not None:
        check_id(conversation_id, argument="conversation_id")
    if owner is not None:
        check_id(owner, argument="owner", owner=True)
    check_query(query)
    cids, state = _scope_state(memory, conversation_id, owner, options)
    versions = sorted((str(r["conversation_id"]), str(r["version"])) for r in state)
    bound = {
        "q": digest(query),
        "f": digest(options.binding()),
        "s": digest([conversation_id, owner]),
    }
    seen = _open_cursor(codec, options.cursor, bound, versions)
    page = Page(query=query, k=options.k, hits=[], rank=len(seen))
    speakers = _named_speakers(options, state, page)
    if speakers == []:
        return page
    depth = len(seen) + options.k + 1
    if depth - 1 > MAX_DEPTH:
        page.notes.append(f"cursors reach at most {MAX_DEPTH} hits deep; refine the query")
        return page
    hits, result = _rank(memory, query, conversation_id, owner, options, speakers, cids, depth)
    if result is not None:
        page.answerable = result.answerable
        page.unsupported = list(result.unsupported)
        page.answer = result.answer if not seen else None
        page.notes += result.notes
        page.instructions = list(result.instructions) if not seen else []
        page.conflicts = list(result.conflicts) if not seen else []
        page.order = result.order
    seen_set = set(seen)
    fresh = [h for h in hits if _short(h.turn_id) not in seen_set]
    more = len(fresh) > options.k
    chosen = fresh[: options.k]
    page.hits = _page_hits(memory, chosen, cids)
    if options.max_tokens is not None:
        _trim(memory, page, options.max_tokens)
        more = more or page.omitted > 0
    if more and len(seen) + len(page.hits) < MAX_DEPTH and page.hits:
        page.next_cursor = codec.seal(
            bound | {"m": digest(versions), "seen": seen + [_short(h.turn_id) for h in page.hits]}
        )
    return page


def _scope_state(
    memory: Memory, conversation_id: str | None, owner: str | None, options: Options
) -> tuple[list[str], list[dict[str, Any]]]:
    """The searched conversations and their write versions (and speakers when a ``speaker``
    is asked for).

    Raises:
        ConversationNotFound / OwnerNotFound: nothing to search (the engine's errors, before a
            cursor or a name is read); MalformedInput: neither a conversation nor an owner.
    """
    cids = (
        [conversation_id]
        if conversation_id is not None
        else (memory.owner_conversations(owner) if owner is not None else [])
    )
    state = (
        memory.store.read(
            "read/scope_state", conversation_ids=cids, with_speakers=options.speaker is not None
        )
        if cids
        else []
    )
    if not any(r["version"] is not None or r["speakers"] for r in state):
        if conversation_id is not None:
            raise ConversationNotFound(conversation_id)
        raise (
            OwnerNotFound(str(owner))
            if owner is not None
            else MalformedInput(
                "a search needs a conversation id or an owner", argument="conversation_id"
            )
        )
    return cids, state


def _open_cursor(
    codec: CursorCodec,
    cursor: str | None,
    bound: dict[str, str],
    versions: list[tuple[str, str]],
) -> list[str]:
    """The turns earlier pages returned (none without a cursor).

    Raises:
        InvalidCursor: forged (`CursorCodec.open`), mismatched (another query, filters or
            scope) or stale (memory was written since).
    """
    if cursor is None:
        return []
    payload = codec.open(cursor)
    if {key: payload.get(key) for key in bound} != bound:
        raise InvalidCursor(
            "the cursor belongs to another search (query, filters or scope); pass the same "
            "query and filters, or search again without a cursor",
            reason="mismatched",
        )
    if payload.get("m") != digest(versions):
        raise InvalidCursor(
            "memory changed since this cursor was issued (turns were written or forgotten); "
            "search again without a cursor",
            reason="stale",
        )
    return [str(s) for s in payload.get("seen", [])]


def _named_speakers(options: Options, state: list[dict[str, Any]], page: Page) -> list[str] | None:
    """The stored speakers the ``speaker`` option names (case and accents folded); None
    without the option. None of them: ``[]``, and ``page`` says so (an unknown name is said,
    not silently empty)."""
    if options.speaker is None:
        return None
    stored = sorted({str(s) for r in state for s in r["speakers"] if s is not None})
    wanted = fold_name(options.speaker)
    speakers = [s for s in stored if fold_name(s) == wanted]
    if not speakers:
        page.unknown_names = [options.speaker]
        page.speakers = stored
        page.answerable = False
        page.notes.append(
            f"no speaker named {options.speaker!r} in this memory; speakers: "
            + (", ".join(stored) if stored else "none")
        )
    return speakers


def _short(turn_id: str) -> str:
    """A turn id's digest in a cursor (10 hex characters: a cursor stays small and names no
    turn)."""
    return hashlib.blake2b(turn_id.encode("utf-8", "surrogatepass"), digest_size=5).hexdigest()


def _rank(
    memory: Memory,
    query: str,
    conversation_id: str | None,
    owner: str | None,
    options: Options,
    speakers: list[str] | None,
    cids: list[str],
    depth: int,
) -> tuple[list[Hit], Any]:
    """The search's ranking, ``depth`` deep: the engine's, or for ``exact`` the turns that
    hold the phrase, by cosine to the query."""
    between = (
        (options.since, options.until)
        if options.since is not None or options.until is not None
        else None
    )
    if options.exact is None:
        result = memory.search(
            query,
            conversation_id,
            depth,
            owner=owner,
            speakers=speakers,
            sessions=options.session,
            between=between,
            where=options.where,
        )
        return list(result.hits), result
    rows = memory.store.read(
        "read/turns_containing",
        conversation_ids=cids,
        phrase=options.exact,
        limit=MAX_EXACT_POOL,
    )
    keep = []
    for r in rows:
        when = r["observed_at"]
        when = when.to_native() if hasattr(when, "to_native") else when
        if speakers is not None and r["speaker"] not in speakers:
            continue
        if options.session is not None and int(r["session"]) != options.session:
            continue
        if options.since is not None and when < options.since:
            continue
        if options.until is not None and when > options.until:
            continue
        keep.append((r, when))
    if not keep:
        return [], None
    q = memory.embedder.encode_one(query) if query.strip() else None
    hits = []
    for r, when in keep:
        cos = 0.0
        if q is not None and r["embedding"] is not None:
            v = np.asarray(r["embedding"], dtype=np.float32)
            norm = float(np.linalg.norm(v) * np.linalg.norm(q)) or 1.0
            cos = float(np.dot(v, q)) / norm
        hits.append(
            Hit(
                turn_id=r["turn_id"],
                text=r["text"],
                speaker=r["speaker"],
                session=int(r["session"]),
                observed_at=when,
                score=round(cos, 4),
                conversation_id=r["conversation_id"],
                source=r["source"],
                terms={"cosine": round(cos, 4)},
                trace={"generators": ["exact"], "exact": options.exact},
            )
        )
    hits.sort(key=lambda h: -h.score)
    return keep_matching(memory.store, hits, options.where)[:depth], None


#: one reason per score term or generator, strongest first in `why`
_REASONS: dict[str, str] = {
    "cosine": "close in meaning to the query",
    "fact": "a fact taken from it matches",
    "bm25": "shares the query's words",
    "entity": "mentions an entity the query names",
    "event": "part of an event the query's facts belong to",
    "hop": "reached through an entity of an earlier hit",
    "chain": "on the answer path of a chain of relations",
    "speaker": "said by the speaker the query names",
    "adjacent": "next to a top hit",
    "exchange": "a user's turn and the reply to it, one of which matches",
    "time": "said in the time the query names",
    "date": "dated the day the query names",
    "current": "holds the current value",
}


def why(hit: Hit) -> str:
    """One line saying why a hit is here, from its score terms and trace."""
    if "exact" in hit.trace:
        return f"holds {hit.trace['exact']!r}; ranked by closeness in meaning to the query"
    parts = [
        (value, _REASONS[name])
        for name, value in hit.terms.items()
        if name in _REASONS and value > 0
    ]
    parts.sort(key=lambda p: -p[0])
    text = "; ".join(reason for _, reason in parts[:3]) or "ranked by the search's score"
    if "reordered" in hit.trace or "current" in hit.trace:
        text += "; moved up as the current value"
    return text


def _iso(value: Any) -> str | None:
    if value is None:
        return None
    value = value.to_native() if hasattr(value, "to_native") else value
    if isinstance(value, datetime):
        aware = value if value.utcoffset() is not None else value.replace(tzinfo=UTC)
        return aware.astimezone(UTC).isoformat()
    return str(value)


def _page_hits(memory: Memory, hits: Sequence[Hit], cids: list[str]) -> list[PageHit]:
    if not hits:
        return []
    scope = sorted({h.conversation_id for h in hits if h.conversation_id} | set(cids))
    rows = memory.store.read(
        "read/hit_details", turn_ids=[h.turn_id for h in hits], conversation_ids=scope
    )
    events = {r["turn_id"]: r for r in rows}
    out = []
    for h in hits:
        observed = h.observed_at.astimezone(UTC)
        detail = events.get(h.turn_id) or {}
        event = _iso(detail.get("event_time"))
        out.append(
            PageHit(
                turn_id=h.turn_id,
                conversation_id=h.conversation_id or (cids[0] if len(cids) == 1 else ""),
                session=h.session,
                date=observed.date().isoformat(),
                observed_at=observed.isoformat(),
                speaker=h.speaker,
                text=h.text,
                score=round(h.score, 4),
                why=why(h),
                event_date=event[:10] if event else None,
                source=h.source,
                passage=(
                    {"start": int(h.passage["start"]), "end": int(h.passage["end"])}
                    if h.passage
                    else None
                ),
                metadata=h.metadata,
            )
        )
    return out


def _trim(memory: Memory, page: Page, budget: int) -> None:
    """Keep the page's hits, in order, while their texts fit ``budget`` tokens of the
    embedder's tokenizer; the rest are ``omitted`` (they open the next page)."""
    tokenizer = memory.embedder.model.tokenizer
    used = 0
    kept: list[PageHit] = []
    counts = (
        [
            len(ids)
            for ids in tokenizer([h.text for h in page.hits], add_special_tokens=False)["input_ids"]
        ]
        if page.hits
        else []
    )
    for hit, n in zip(page.hits, counts, strict=True):
        hit.tokens = n
        if used + n > budget:
            break
        kept.append(hit)
        used += n
    left = page.hits[len(kept) :]
    page.omitted = len(left)
    page.omitted_tokens = sum(h.tokens or 0 for h in left)
    page.tokens = used
    page.hits = kept
    if left:
        page.notes.append(
            f"max_tokens {budget}: {len(left)} hit(s) of {page.omitted_tokens} tokens left out; "
            "they open the next page"
        )
