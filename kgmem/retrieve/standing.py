"""What a search serves beside its ranked turns: the standing instructions and preferences that
apply to the request, the conflicts among the hits, and time order for ordering questions.

Written by `kgmem.ingest.extraction.standing`; read here in one round trip (``read/standing``) after
the hits are ranked, so none of it changes which turns rank where, except that a hit's conflicting
statement is brought into the hits (it takes the place of the last hit that is in no conflict)
and an ordering search returns its hits in time order.

- **Applicability** (`applicable`): an instruction in force at the moment of asking applies
  when its vector (its turn's) lies within ``instruction_similarity`` (a setting) of the request's,
  or when its typed scopes (`kgmem.ingest.extraction.standing.typed_scopes`: code, formatting,
  dependencies, security, testing, performance) meet the request's: "always format code with syntax
  highlighting" applies to every request for code, whatever its words. At most ``max_instructions``
  (a setting) are served, those sharing most scopes and most similar first, so an agent can put them
  in every prompt.
- **Conflicts** (`conflicts_of`): each ``CONFLICTS`` pair with a hit at either end, as
  ``{"turn_ids", "turns": [{"turn_id", "observed_at", "session", "speaker", "text"}], "why",
  "score"}``; the agent should ask which statement holds.
- **Order** (`asks_order`, `in_time_order`): "in what order did I ...", "what did I do first",
  "in chronological order" read as ordering questions; their hits (or any search's with
  ``order="time"``) come back oldest first, each with its date.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from kgmem.config import shipped_default
from kgmem.errors import MalformedInput
from kgmem.ingest.extraction.standing import typed_scopes
from kgmem.models import Hit
from kgmem.retrieve.question import Question
from kgmem.store import Store

__all__ = [
    "ORDERS",
    "Order",
    "applicable",
    "asks_order",
    "check_order",
    "conflicts_of",
    "in_time_order",
    "serve_standing",
]

#: characters of each conflicting turn's text a conflict shows
CONFLICT_TEXT_CHARS = 300
Order = Literal["relevance", "time"]
ORDERS: tuple[str, ...] = ("relevance", "time")

_ORDER_QUESTION = re.compile(
    r"\b(?:in (?:what|which) order|order in which|in (?:chronological|the right|the same) order|"
    r"chronological(?:ly)?|in order(?! to\b)(?! for\b)|(?:what|which) (?:did|have) (?:i|we) "
    r"\w+(?: \w+)? first|(?:what|which) came first|sequence (?:of|in which))\b",
    re.IGNORECASE,
)


def asks_order(question: Question) -> bool:
    """Whether ``question`` asks for an order in time ("In what order did I bring up A, B and
    C?", "What did I do first?"); "in order to" is not one (read from `Question.text`)."""
    return bool(_ORDER_QUESTION.search(question.text))


def check_order(order: object) -> Order | None:
    """``order`` checked: None, ``"relevance"`` or ``"time"``.

    Raises:
        MalformedInput: anything else (``argument`` ``order``).
    """
    if order is None or order in ORDERS:
        return order  # type: ignore[return-value]
    raise MalformedInput(
        f"order must be one of {list(ORDERS)} or None, not {order!r}", argument="order"
    )


def applicable(
    rows: Sequence[dict[str, Any]],
    vector: npt.NDArray[np.float32] | None,
    request: Question | None,
    limit: int = shipped_default("max_instructions"),
    similarity: float = shipped_default("instruction_similarity"),
) -> list[dict[str, Any]]:
    """The instructions of ``rows`` (``read/standing`` rows) that apply to ``request`` (module
    docstring; its typed scopes are read from `Question.text`, ``vector`` is its embedding),
    best first, at most ``limit``; with no request, every one, oldest first.

    Each is ``{"id", "turn_id", "kind", "text", "scope", "valid_from", "why", "similarity"}``
    (``why``: ``scope:<names>`` or ``similar``; ``similarity`` the cosine in [-1, 1])."""
    asked = request.text if request is not None else ""  # empty: no request
    scopes = set(typed_scopes(asked)) if asked else set()
    chosen: list[tuple[float, dict[str, Any]]] = []
    for row in rows:
        sim = (
            float(np.asarray(row["embedding"], dtype=np.float32) @ vector)
            if vector is not None and row.get("embedding") is not None
            else 0.0
        )
        shared = sorted(scopes & set(row.get("scope") or ()))
        if asked and not shared and sim < similarity:
            continue
        why = f"scope:{','.join(shared)}" if shared else ("similar" if asked else "standing")
        item = {k: row.get(k) for k in ("id", "turn_id", "kind", "text", "scope", "valid_from")}
        item["scope"] = list(item["scope"] or [])
        item |= {"why": why, "similarity": round(sim, 4)}
        chosen.append((len(shared) * 0.2 + sim, item))
    if not asked:
        return [item for _, item in chosen]
    chosen.sort(key=lambda pair: -pair[0])
    return [item for _, item in chosen[:limit]]


def conflicts_of(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``read/standing`` conflict rows as `SearchResult.conflicts` entries (module docstring)."""
    out = []
    for row in rows:
        turns = [
            {
                "turn_id": row[f"{end}_id"],
                "observed_at": row[f"{end}_at"],
                "session": row[f"{end}_session"],
                "speaker": row[f"{end}_speaker"],
                "text": (row[f"{end}_text"] or "")[:CONFLICT_TEXT_CHARS],
            }
            for end in ("from", "to")
        ]
        turns.sort(key=lambda t: (t["observed_at"] is None, t["observed_at"]))
        out.append(
            {
                "turn_ids": [t["turn_id"] for t in turns],
                "turns": turns,
                "why": row["why"],
                "score": row["score"],
            }
        )
    return out


def _with_partners(hits: list[Hit], rows: Sequence[dict[str, Any]]) -> list[Hit]:
    """``hits`` with each conflict's other statement brought in right after its partner, in the
    place of the last hits that are in no conflict (the number of hits stays)."""
    k = len(hits)
    present = {h.turn_id for h in hits}
    paired: set[str] = set()
    out = list(hits)
    for row in rows:
        for mine, other in (("from", "to"), ("to", "from")):
            if row[f"{mine}_id"] in present and row[f"{other}_id"] not in present:
                at = next(i for i, h in enumerate(out) if h.turn_id == row[f"{mine}_id"])
                partner = out[at]
                out.insert(
                    at + 1,
                    Hit(
                        turn_id=row[f"{other}_id"],
                        text=row[f"{other}_text"],
                        speaker=row[f"{other}_speaker"],
                        session=row[f"{other}_session"],
                        observed_at=row[f"{other}_at"],
                        conversation_id=partner.conversation_id,
                        score=partner.score,
                        terms={"conflict": float(row["score"] or 0.0)},
                        trace={"generator": "conflict", "conflicts_with": partner.turn_id},
                    ),
                )
                present.add(row[f"{other}_id"])
            paired |= {row["from_id"], row["to_id"]}
    while len(out) > k:
        drop = next(
            (i for i in range(len(out) - 1, -1, -1) if out[i].turn_id not in paired), len(out) - 1
        )
        out.pop(drop)
    return out


def in_time_order(hits: list[Hit], positions: dict[str, int]) -> list[Hit]:
    """``hits`` oldest first (by time, then utterance position ``positions``; stable)."""
    return sorted(hits, key=lambda h: (h.observed_at, positions.get(h.turn_id, 0)))


def serve_standing(
    store: Store,
    *,
    conversation_id: str,
    question: Question,
    vector: npt.NDArray[np.float32],
    hits: list[Hit],
    as_of: datetime | None,
    order: Order | None,
    limit: int = shipped_default("max_instructions"),
    similarity: float = shipped_default("instruction_similarity"),
    cache: dict[datetime | None, dict[str, Any]] | None = None,
) -> tuple[list[Hit], list[dict[str, Any]], list[dict[str, Any]], Order]:
    """The hits (partners brought in; in time order for an ordering search), the instructions
    that apply to ``question`` (``vector`` its embedding; at most ``limit``, at least
    ``similarity`` alike: `applicable`), the conflicts and the order used, in one round trip
    (``read/standing``). An owner search (no ``conversation_id``) gets the conflicts of each
    hit's conversation and no instructions.

    ``cache`` (the conversation context's `standing_reads`, emptied with the context when the
    conversation is written to): a relevance-ordered search of one conversation as it is now
    (``as_of`` None) reads the conversation's instructions and every conflict of it once and
    keeps them there; later such searches make no round trip (the conflicts of the hits are
    picked in Python, in the statement's order). An ordering search needs the hits' utterance
    positions and always reads."""
    used: Order = order or ("time" if asks_order(question) else "relevance")
    rows, positions, stated = _standing_rows(
        store, conversation_id, hits, as_of, ordering=used == "time", cache=cache
    )
    instructions = (
        applicable(stated, vector, question, limit, similarity) if conversation_id else []
    )
    hits = _with_partners(hits, rows) if rows else hits
    if used == "time":
        hits = in_time_order(hits, positions)
    return hits, instructions, conflicts_of(rows), used


def _standing_rows(
    store: Store,
    conversation_id: str,
    hits: list[Hit],
    as_of: datetime | None,
    *,
    ordering: bool,
    cache: dict[datetime | None, dict[str, Any]] | None,
) -> tuple[list[dict[str, Any]], dict[str, int], list[dict[str, Any]]]:
    """``read/standing`` for `serve_standing`: the conflict rows with a hit at either end, the
    hits' utterance positions (none from the cache, which serves no ordering search) and the
    conversation's instruction rows; from ``cache`` when it serves (see `serve_standing`)."""
    if cache is not None and conversation_id and as_of is None and not ordering:
        read = cache.get(None)
        if read is None:
            read = cache[None] = store.read(
                "read/standing",
                conversation_id=conversation_id,
                as_of=None,
                turn_ids=[],
                every=True,
            )[0]
        present = {h.turn_id for h in hits}
        hit = [r for r in read["conflicts"] if r["from_id"] in present or r["to_id"] in present]
        return hit, {}, read["instructions"]
    cids = [conversation_id] if conversation_id else sorted({h.conversation_id for h in hits})
    rows: list[dict[str, Any]] = []
    positions: dict[str, int] = {}
    stated: list[dict[str, Any]] = []
    for cid in cids:
        read = store.read(
            "read/standing",
            conversation_id=cid,
            as_of=as_of,
            turn_ids=[h.turn_id for h in hits],
            every=False,
        )[0]
        rows.extend(read["conflicts"])
        positions |= {p["id"]: p["index"] for p in read["positions"]}
        stated = read["instructions"]
    return rows, positions, stated
