"""Records read back from the store, and what a new record changes against the stored one."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kgmem.models import FactRecord, TimeInterval, TurnRecord

__all__ = ["changed", "fact_from_row", "keyed", "turn_from_row"]


def keyed(
    stored: Iterable[Mapping[str, Any]], cid: str, records: Sequence[FactRecord]
) -> dict[str, FactRecord]:
    """Stored keyed facts (as minimal records) overlaid with the new records on any key."""
    keyed: dict[str, FactRecord] = {}
    for row in stored:
        if row["key"]:
            keyed[row["id"]] = FactRecord(
                id=row["id"],
                conversation_id=cid,
                subject="",
                relation="",
                object="",
                text=row["text"] or "",
                source=row["source"] or "extracted",
                key=row["key"],
                serial=row["serial"] or 0,
                valid_from=row["valid_from"],
                modality=row.get("modality") or "asserted",
            )
    for f in records:
        if f.key:
            keyed[f.id] = f
        else:
            keyed.pop(f.id, None)  # re-extracted without a key (e.g. now hypothetical)
    return keyed


def changed(row: Mapping[str, Any] | None, fact: FactRecord) -> bool:
    """A fact must be (re)written: new, or its text, key or modality differs from the store."""
    if row is None:
        return True
    return (
        row.get("text") != fact.text
        or row.get("key") != fact.key
        or (row.get("modality") or "asserted") != fact.modality
    )


def turn_from_row(cid: str, row: Mapping[str, Any]) -> TurnRecord:
    return TurnRecord(
        id=row["id"],
        conversation_id=cid,
        session=int(row["session"]),
        index=int(row["index"]),
        dia_id=str(row["dia_id"]),
        speaker=row["speaker"],
        text=row["text"],
        observed_at=row["observed_at"],
        role=row.get("role"),
        request=bool(row.get("request")),
        source=row.get("source"),
        source_kind=row.get("source_kind") or "chat",
    )


def fact_from_row(cid: str, row: Mapping[str, Any]) -> FactRecord:
    interval = None
    if row["event_time"] is not None and row["event_end"] is not None:
        interval = TimeInterval(
            start=row["event_time"],
            end=row["event_end"],
            granularity=row["event_granularity"] or "day",
            phrase=row["event_phrase"] or "",
        )
    return FactRecord(
        id=row["id"],
        conversation_id=cid,
        subject=row["subject"] or "",
        relation=row["relation"] or "",
        object=row["object"] or "",
        text=row["text"] or "",
        source=row["source"] or "manual",
        cites=tuple(row["cites"]),
        about=tuple((e, r) for e, r in row["about"]),
        event_time=interval,
        valid_from=row["valid_from"],
        key=row["key"],
        serial=row["serial"] or 0,
        confidence=row["confidence"] if row["confidence"] is not None else 1.0,
        session=row["session"],
    )
