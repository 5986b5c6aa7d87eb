"""Forgetting turns: deleting them and every fact citing them, then deriving the conversation's
entities, mentions, extracted facts, supersession and events again from the turns that remain,
in the same transaction (`kgmem.ingest.pipeline.Ingestor.forget_turns`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kgmem.errors import TurnNotFound
from kgmem.ingest.extraction.events import group_events
from kgmem.ingest.extraction.supersession import assign_keys, supersession_links
from kgmem.ingest.report import Row
from kgmem.ingest.stages.context import Stage
from kgmem.ingest.writing.stored import fact_from_row, turn_from_row
from kgmem.ingest.writing.units import dedupe_entities
from kgmem.ingest.writing.writer import (
    WriteUnit,
    entity_rows,
    event_rows,
    fact_rows,
    mention_rows,
    supersede_rows,
)
from kgmem.models import EntityRecord, FactRecord, TurnRecord
from kgmem.store import Transaction

__all__ = ["ForgetStage"]


class ForgetStage(Stage):
    """The stage of `kgmem.ingest.pipeline.Ingestor` that forgets turns and derives the
    conversation's data again from the turns that remain."""

    def forget_turns(self, conversation_id: str, turn_ids: Sequence[str]) -> dict[str, int]:
        """Forget turns (full ids) of one conversation, leaving no trace of their text.

        In one transaction under the conversation lock: the turns and every fact citing one of
        them are deleted (a fact citing a forgotten and a kept turn is dropped: its text may
        quote either); ``NEXT`` is relinked around them; then the conversation's entities,
        mentions and extracted facts are derived again from the kept turns (entity names and
        aliases only from text that remains), and supersession and events are recomputed over
        the remaining facts (a value that a forgotten fact superseded is current again, with its
        ``valid_to`` restored). Forgotten ids are remembered (ids only), so forgetting them
        again does nothing.

        Returns:
            ``{"turns": n, "facts": n, "rederived_facts": n}``: turns and citing facts deleted
            (0 and 0 when every id was already forgotten), extracted facts derived again.

        Raises:
            TurnNotFound: an id the conversation never held (nothing is changed).
        """
        cid = conversation_id
        wanted = list(dict.fromkeys(turn_ids))

        def work(tx: Transaction) -> dict[str, int]:
            tx.run("write/lock_conversation", conversation_id=cid)
            rows = tx.run("read/conversation_turns", conversation_id=cid)
            gone = _present(tx, cid, wanted, {row["id"] for row in rows})
            if not gone:
                return {"turns": 0, "facts": 0, "rederived_facts": 0}
            gone_set = set(gone)
            fact_rows_before = tx.run("read/fact_records", conversation_id=cid)
            derived = any(f["source"] == "extracted" for f in fact_rows_before) or bool(
                tx.run("read/count_conversation", conversation_id=cid)[0]["entities"]
            )
            given = [
                fact_from_row(cid, f)
                for f in fact_rows_before
                if f["source"] != "extracted" and not gone_set & set(f["cites"])
            ]
            old_vectors = {
                (f["id"], f["text"]): f["embedding"]
                for f in fact_rows_before
                if f["source"] == "extracted" and f["embedding"] is not None
            }
            counts = tx.run("write/forget_turns", conversation_id=cid, turn_ids=gone)[0]
            tx.run("write/clear_derived", conversation_id=cid)
            owner = self.threads.owner(cid, tx)
            if owner is not None:  # the owner's shared entities this thread no longer uses
                tx.run("write/release_entities", conversation_id=cid, owner=owner)

            kept = [turn_from_row(cid, row) for row in rows if row["id"] not in gone_set]
            rederived = self._rederive(
                tx,
                cid,
                owner=owner,
                kept=kept,
                given=given,
                old_vectors=old_vectors,
                derived=derived,
                bridges=_bridges(rows, gone_set),
            )
            return {
                "turns": int(counts["turns"]),
                "facts": int(counts["facts"]),
                "rederived_facts": rederived,
            }

        done = self.store.transaction(work)
        if done["turns"]:
            self.ctx.supersede_owner(cid)
            self.ctx.derive_standing(cid)
        return done

    def _rederive(
        self,
        tx: Transaction,
        cid: str,
        *,
        owner: str | None,
        kept: Sequence[TurnRecord],
        given: Sequence[FactRecord],
        old_vectors: Mapping[tuple[str, str], Any],
        derived: bool,
        bridges: list[Row],
    ) -> int:
        """Derive the conversation's entities, mentions, extracted facts, supersession and events
        again from the ``kept`` turns and the ``given`` (not extracted) facts, and write them with
        the ``NEXT`` ``bridges``. An extracted fact whose id and text were stored keeps its old
        vector (``old_vectors``). Only when the conversation had derived data (``derived``).
        With ``owner``, the entities are the owner's shared ones (`kgmem.ingest.writing.threads`).

        Returns:
            the number of extracted facts derived again.
        """
        extracted: list[FactRecord] = []
        entities: list[EntityRecord] = []
        mentions: list[tuple[str, str]] = []
        if derived and self.extractor is not None and kept:
            speakers = list(dict.fromkeys(t.speaker for t in kept))
            extraction = self.ctx.extract(cid, kept, speakers, owner)
            extracted, entities, mentions = (
                extraction.facts,
                extraction.entities,
                extraction.mentions,
            )
        records = assign_keys([*given, *extracted])
        extracted = [r for r in records if r.source == "extracted"]
        fresh = [f for f in extracted if (f.id, f.text) not in old_vectors]
        encoded = dict(
            zip(
                (f.id for f in fresh),
                self.embedder.encode([f.text for f in fresh]),
                strict=True,
            )
        )
        vectors = [
            old_vectors[(f.id, f.text)] if f.id not in encoded else encoded[f.id] for f in extracted
        ]
        keyed = [r for r in records if r.key is not None]
        WriteUnit(
            next=bridges,
            entities=entity_rows(dedupe_entities(entities)),
            facts=fact_rows(extracted, vectors),
            mentions=mention_rows(mentions),
            supersedes=supersede_rows(supersession_links(keyed)),
            events=event_rows(group_events(records)),
        ).write(tx)
        return len(extracted)


def _present(tx: Transaction, cid: str, wanted: Sequence[str], present: set[str]) -> list[str]:
    """The ``wanted`` ids still stored, in order; an id that was forgotten before is skipped.

    Raises:
        TurnNotFound: an id the conversation never held.
    """
    missing = [i for i in wanted if i not in present]
    if missing:
        known = {
            r["id"]
            for r in tx.run("read/forgotten_turn_ids", conversation_id=cid, turn_ids=missing)
        }
        unknown = [i for i in missing if i not in known]
        if unknown:
            raise TurnNotFound(cid, unknown)
    return [i for i in wanted if i in present]


def _bridges(rows: Sequence[Mapping[str, Any]], gone: set[str]) -> list[Row]:
    """``NEXT`` rows linking across each run of forgotten turns (``rows`` ordered by index)."""
    bridges: list[Row] = []
    previous: str | None = None
    skipped = False
    for row in rows:
        if row["id"] in gone:
            skipped = True
            continue
        if previous is not None and skipped:
            bridges.append({"prev": previous, "next": row["id"]})
        previous, skipped = row["id"], False
    return bridges
