"""One question's evidence as a layered picture: why each turn came back, and where gold was lost.

`EvidencePicture` is the one data model both renderers draw (`kgmem.audit.draw.draw_picture`,
a static matplotlib PNG; `kgmem.audit.interactive`, a neo4j-viz view for notebooks and
``kgmem explain --html``). It is built from what the read path already returns, with no
query of its own: the `SearchResult` (hits with their score terms and trace, the plan, the
current-value decisions) and the evidence subgraph of the hits (`evidence_subgraph`, the code
twin of the Browser statement `Memory.evidence_cypher` prints). Five layers, left to right:

1. ``question``: the question with its plan (operators, entities, dates, cues);
2. ``hits``: the top-k turns in rank order (local id, speaker, date, snippet, score terms),
   then each gold turn that is not among them, with why (`MissedGold`);
3. ``facts``: for each hit, the facts that brought it (the best citing fact behind the
   ``fact`` term, the current value behind ``current``, a chain or hop fact), with the term
   each contributed;
4. ``links``: the entities and events that connected them (the trace's ``via_entities``,
   ``event_id``, hop entity; the facts' ``ABOUT`` / ``MEMBER_OF`` targets) and the older values
   their ``SUPERSEDES`` links point to;
5. ``decision``: the current- or past-value decision per supersession key, and the abstention
   when memory does not support the question.

By default the picture holds the hits' own evidence and at most `MAX_NODES` nodes (question,
hits, missed gold and decisions always; then bringing facts, connectors, other links, in that
order); ``expand=True`` adds every citing fact and every link of the subgraph.

The data model lives in `kgmem.audit.model` and the building in `kgmem.audit.build`; both are
re-exported here, so ``from kgmem.audit.picture import build_picture`` keeps working.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from kgmem.audit.build import build_picture
from kgmem.audit.model import (
    MAX_NODES,
    POOL_K,
    EvidencePicture,
)
from kgmem.audit.subgraph import evidence_subgraph
from kgmem.config import DEFAULT_K

if TYPE_CHECKING:
    from datetime import datetime

    from kgmem.api import Memory
    from kgmem.retrieve.config import EngineConfig
    from kgmem.retrieve.retriever import SearchResult

__all__ = [
    "evidence_picture",
]


def evidence_picture(
    memory: Memory,
    question: str,
    conversation_id: str,
    *,
    k: int = DEFAULT_K,
    gold: Iterable[str] = (),
    expand: bool = False,
    max_nodes: int | None = MAX_NODES,
    config: EngineConfig | None = None,
    as_of: datetime | None = None,
) -> tuple[EvidencePicture, SearchResult]:
    """Search, read the hits' evidence subgraph and build the picture (the usual entry point).

    One `Memory.search` with ``k`` = `POOL_K` (the whole scored pool, so a missed gold turn's
    rank is known; the top ``k`` are the same hits a search with ``k`` returns), then
    `evidence_subgraph` of the top ``k`` and the gold turns.

    Args:
        memory: a connected memory.
        question: the question.
        conversation_id: the conversation to search.
        k: hits shown.
        gold: gold turn ids, full (``conv-26:D1:3``) or local to the conversation (``D1:3``).
        expand / max_nodes: see `build_picture`.
        config / as_of: passed to `Memory.search`.

    Returns:
        (the picture, the search result cut to ``k`` hits, as ``kgmem search`` returns it).

    Raises:
        ConversationNotFound, MalformedInput, StoreError: as `Memory.search`.
    """
    full = memory.search(question, conversation_id, POOL_K, config=config, as_of=as_of)
    shown = full.model_copy(update={"hits": full.hits[:k], "k": k})
    prefix = f"{conversation_id}:"
    gold_ids = [g if g.startswith(prefix) else prefix + g for g in gold]
    # the turns a decision's chosen value cites, so that fact's text is in the subgraph too
    chosen = [str(t) for d in full.current for t in d.get("turns") or []]
    subgraph = evidence_subgraph(
        memory, conversation_id, [h.turn_id for h in shown.hits] + gold_ids + chosen
    )
    picture = build_picture(
        full,
        subgraph,
        k=k,
        gold=gold_ids,
        expand=expand,
        max_nodes=None if expand and max_nodes == MAX_NODES else max_nodes,
        cypher=memory.evidence_cypher(shown),
    )
    return picture, shown
