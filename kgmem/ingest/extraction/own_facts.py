"""Only the user's own turns state facts: what an extraction keeps of each turn's facts by its
role (docs/roles-and-requests.md)."""

from __future__ import annotations

from collections.abc import Sequence

from kgmem.ingest.extraction.extract import Extraction
from kgmem.models import FactRecord, TurnRecord

__all__ = ["NOT_THE_USER", "own_facts"]

NOT_THE_USER = frozenset({"assistant", "system", "tool"})
"""Roles whose turns never state facts (`kgmem.roles`)."""


def own_facts(extraction: Extraction, turns: Sequence[TurnRecord]) -> Extraction:
    """Keep only the facts each turn may state (docs/roles-and-requests.md).

    - A turn of the user, or of a named speaker without a role, keeps its facts.
    - A memory-request turn states nothing: its facts and mentions are dropped.
    - An ``assistant``, ``system`` or ``tool`` turn is never evidence of a fact about the user.
      Its suggestions (``hypothetical`` facts: "you could try the Harlow 88") are kept as the
      speaker's own: the speaker is the subject, no entity of the fact's old subject stays
      linked, the text says who suggested it, and the fact takes part in no current value.
      Everything else it says (acknowledgements, restatements, questions, plans) yields no fact.
    """
    by_id = {t.id: t for t in turns}
    barred = {t.id for t in turns if t.request or t.role in NOT_THE_USER}
    if not barred:
        return extraction
    requests = {t.id for t in turns if t.request}
    person = {e.name.casefold(): e.id for e in extraction.entities if e.type == "person"}
    kept: list[FactRecord] = []
    for f in extraction.facts:
        if not barred & set(f.cites):
            kept.append(f)
            continue
        if requests & set(f.cites) or f.modality != "hypothetical" or len(f.cites) != 1:
            continue
        turn = by_id.get(f.cites[0])
        speaker_id = person.get(turn.speaker.casefold()) if turn is not None else None
        if turn is None or speaker_id is None:
            continue
        others = [(e, r) for e, r in f.about if r != "subject" and e != f.subject]
        kept.append(
            f.model_copy(
                update={
                    "subject": speaker_id,
                    "about": ((speaker_id, "subject"), *others),
                    "text": f"{turn.speaker} suggested: {f.text}",
                    "key": None,
                }
            )
        )
    return Extraction(
        facts=kept,
        entities=extraction.entities,
        mentions=[m for m in extraction.mentions if m[0] not in requests],
    )
