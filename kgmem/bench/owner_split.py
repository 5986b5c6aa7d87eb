"""A LoCoMo conversation stored as several threads of one owner (``kgmem bench locomo
--owner-split``), and the thread ids mapped back to the conversation's."""

from __future__ import annotations

from collections.abc import Sequence

from kgmem.api import Memory
from kgmem.models import ConversationRecord

__all__ = ["THREAD_SEP", "split_threads", "threaded_ids", "unthread"]

#: the separator of a split conversation's thread ids: ``conv-26~2`` is thread 2 of conv-26
THREAD_SEP = "~"


def split_threads(record: ConversationRecord, n: int) -> list[ConversationRecord]:
    """``record`` as ``n`` threads of one owner (the conversation id): sessions in order, in
    ``n`` contiguous groups, thread ``i`` named ``<id>~<i>`` (1-based), each with the turns,
    facts (those citing only its turns) and the entities its facts and turns need, every id
    moved from ``<id>:`` to ``<id>~<i>:``. Session numbers and turn indexes are kept."""
    cid = record.conversation_id
    sessions = sorted(s.session for s in record.sessions)
    group = {s: min(i * n // max(len(sessions), 1), n - 1) + 1 for i, s in enumerate(sessions)}
    out: list[ConversationRecord] = []
    for part in range(1, n + 1):
        thread = f"{cid}{THREAD_SEP}{part}"
        mine = {t.id for t in record.turns if group.get(t.session) == part}
        if not mine:
            continue
        text = record.model_copy(
            update={
                "sessions": tuple(s for s in record.sessions if group[s.session] == part),
                "turns": tuple(t for t in record.turns if t.id in mine),
                "facts": tuple(f for f in record.facts if f.cites and set(f.cites) <= mine),
                "questions": (),
                "owner": cid,
            }
        ).model_dump_json()
        moved = text.replace(f'"{cid}:', f'"{thread}:').replace(
            f'"conversation_id":"{cid}"', f'"conversation_id":"{thread}"'
        )
        out.append(ConversationRecord.model_validate_json(moved))
    return out


def unthread(turn_id: str) -> str:
    """A thread's turn id back in its conversation: ``conv-26~2:D5:3`` → ``conv-26:D5:3``."""
    head, sep, local = turn_id.partition(":")
    return f"{head.split(THREAD_SEP, 1)[0]}{sep}{local}"


def threaded_ids(memory: Memory, turn_ids: Sequence[str]) -> list[str]:
    """The stored (thread) ids of a split conversation's turn ids."""
    out = []
    for turn_id in turn_ids:
        cid, _, local = turn_id.partition(":")
        for thread in memory.owner_conversations(cid):
            out.append(f"{thread}:{local}")
    return out
