"""Appending turns to a live conversation: the turn before it has an index, the hook that shares
the append's locked transaction, and the allocation of indexes and ids under that lock
(`kgmem.ingest.pipeline.Ingestor.append`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from kgmem.models import SourceKind, TurnRecord
from kgmem.roles import Role
from kgmem.store import Transaction

__all__ = ["AppendHook", "NewTurn", "allocate_turns"]


@dataclass(frozen=True)
class NewTurn:
    """A turn to append, before the database gives it an index (and, without ``id``, an id).

    Attributes:
        speaker / text: as given (validated by `kgmem.api.Memory.add_turns`).
        observed_at: timezone-aware.
        id: the caller's local id, or None for a default ``t<index>``.
        session: session number, or None for the conversation's last session (1 if new).
        role / request: as on `kgmem.models.TurnRecord`.
        source / source_kind / document / metadata: see `kgmem.models.TurnRecord`.
    """

    speaker: str
    text: str
    observed_at: datetime
    id: str | None = None
    session: int | None = None
    role: Role | None = None
    request: bool = False
    source: str | None = None
    source_kind: SourceKind = "chat"
    document: str | None = None
    metadata: Mapping[str, Any] | None = None


class AppendHook(Protocol):
    """Work that must share an append's locked transaction (see `Ingestor.append`): a caller
    that decides what to append from what is stored (the LangGraph store's item versions) reads
    and links inside the same lock, so concurrent writers cannot both act on one stale read.

    ``prepare`` runs right after the conversation lock is taken and returns the turns to write
    (a subset of ``turns`` with the same texts; ids may change; empty = write nothing).
    ``finish`` runs after they are written, in the same transaction, with their records.
    """

    def prepare(self, tx: Transaction, turns: Sequence[NewTurn]) -> Sequence[NewTurn]: ...

    def finish(self, tx: Transaction, records: Sequence[TurnRecord]) -> None: ...


def allocate_turns(
    conversation_id: str,
    turns: Sequence[NewTurn],
    last: Mapping[str, Any] | None,
    stored: Callable[[list[str]], set[str]],
) -> list[TurnRecord]:
    """Give appended turns their ``index``, id and session; drop ids that are already stored.

    Runs inside the append transaction, after the conversation lock is taken, so ``last`` (the
    stored tail: ``index``, ``session``) and ``stored`` (which of these full ids exist) are
    current. Indexes continue the tail with no gap. An explicit id already stored, or repeated
    in this call, is skipped (stored once). A default id is ``t<index>``; if that id is taken
    (an explicit ``t7`` appended earlier, or later in this call) it becomes ``t<index>-2``,
    ``-3``, ... so a default id never collides and never loses a turn.

    Returns:
        the records to write, in input order.
    """
    next_index = int(last["index"]) + 1 if last else 0
    last_session = int(last["session"]) if last and last.get("session") is not None else 1
    explicit = {f"{conversation_id}:{t.id}" for t in turns if t.id is not None}
    defaults = [f"{conversation_id}:t{next_index + k}" for k in range(len(turns))]
    taken = stored(sorted(explicit | set(defaults)))
    seen: set[str] = set()
    out: list[TurnRecord] = []
    for turn in turns:
        index = next_index + len(out)
        if turn.id is not None:
            local = turn.id
            if f"{conversation_id}:{local}" in taken | seen:
                continue
        else:
            local, n = f"t{index}", 1
            while f"{conversation_id}:{local}" in taken | seen | explicit:
                n += 1
                local = f"t{index}-{n}"
                taken |= stored([f"{conversation_id}:{local}"])
        seen.add(f"{conversation_id}:{local}")
        out.append(
            TurnRecord(
                id=f"{conversation_id}:{local}",
                conversation_id=conversation_id,
                session=turn.session if turn.session is not None else last_session,
                index=index,
                dia_id=local,
                speaker=turn.speaker,
                text=turn.text,
                observed_at=turn.observed_at.astimezone(UTC),
                role=turn.role,
                request=turn.request,
                source=turn.source,
                source_kind=turn.source_kind,
                document=turn.document,
                metadata=dict(turn.metadata) if turn.metadata else None,
            )
        )
    return out
