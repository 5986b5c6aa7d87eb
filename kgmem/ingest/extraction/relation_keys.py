"""Supersession by the trained relation decision, where no rule gives a fact a key.

The rules of `kgmem.ingest.extraction.supersession` key the changes they know the words of ("moved
to", "switched", an attribute of the vocabulary). A change in other words ("after the reorg I ended
up in platform infrastructure") gets no key, so the old value stayed current. Here each such
fact (extracted, asserted or negated, not retrospective, with a subject) is compared with the
keyed facts of the same holder stated in an earlier turn: the nearest `CANDIDATES` by embedding
cosine are scored by `kgmem.truth.decisions.relation` (on the two turns, the utterances its
corpus is made of), and when the calibrated probability that the
new fact is a ``new_value``, ``correction`` or ``retraction`` of one of them (the three
summed) is at least `ADOPT_SCORE` (and the facts are at least `MIN_COSINE` alike), the fact
takes that fact's key. `kgmem.ingest.extraction.supersession.supersession_chain` then links it like
any other value on the key, so the current value, `profile`, ``history`` and
`SearchResult.answer` follow.

Rules stay where they are exact: a fact the rules keyed keeps its key (an email replaces an
email), and a multi-valued key still changes only with a change cue or a negation.
The decision fires on the sentence's meaning, never on a word list of its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from kgmem.ingest.extraction.extract import SERIAL_STRIDE
from kgmem.models import FactRecord
from kgmem.store.tenant import key_holder
from kgmem.truth.decisions import relation
from kgmem.truth.weights import TruthModels

__all__ = ["ADOPT_LABELS", "ADOPT_SCORE", "CANDIDATES", "MIN_COSINE", "Adoption", "adopt_keys"]

CANDIDATES = 20
"""Stored facts of the holder a new fact is compared with at most (the nearest by cosine)."""
ADOPT_LABELS = frozenset({"new_value", "correction", "retraction"})
"""Relations under which the new fact replaces the stored value (takes its key)."""
ADOPT_SCORE = 0.8
"""Calibrated probability of replacing (`ADOPT_LABELS` summed) needed to adopt a key. Chosen on
the corpus's dev split (w5, 160 relation rows) with the first model: replacing against the
other four classes, precision 0.93 at recall 0.54 (0.7: 0.91 / 0.71, but twice the additional
values taken for changes; 0.9: 1.00 / 0.49). With the shipped weights: 0.98 / 0.71 (0.7: 0.95
/ 0.77; 0.9: 1.00 / 0.61; docs/truth.md)."""
MIN_COSINE = 0.3
"""Least cosine between the two facts' texts (MiniLM): a replacement speaks of the same thing."""
_RETROSPECTIVE = re.compile(r"\b(?:used\s+to|previously|formerly|back\s+then)\b", re.I)

Vector = npt.NDArray[np.float32]
Encode = Callable[[list[str]], Any]


@dataclass(frozen=True)
class Adoption:
    """One fact that took a key from the relation decision.

    Attributes:
        fact_id: the new fact.
        older_id: the stored fact whose key it took.
        key: that key.
        label: the most probable of ``new_value``, ``correction`` and ``retraction``.
        score: the calibrated probability of the three together, 0-1.
    """

    fact_id: str
    older_id: str
    key: str
    label: str
    score: float


def _eligible(fact: FactRecord) -> bool:
    return (
        fact.key is None
        and fact.source == "extracted"
        and fact.modality in ("asserted", "negated")
        and bool(key_holder(fact.subject))
        and not _RETROSPECTIVE.search(fact.text)
    )


@dataclass(frozen=True)
class _Keyed:
    """A keyed fact a new fact may replace: its vector and its turn's text and vector."""

    id: str
    key: str
    serial: int
    vector: Vector
    turn_text: str
    turn_vector: Vector


def adopt_keys(
    records: Sequence[FactRecord],
    stored: Sequence[Mapping[str, Any]],
    turn_texts: Mapping[str, str],
    encode: Encode,
    models: TruthModels | None = None,
) -> tuple[list[FactRecord], list[Adoption]]:
    """``records`` with a key adopted where the relation decision says a fact replaces an older
    keyed fact of its holder (module docstring), and the adoptions made.

    The decision reads what its corpus holds, the utterances: the new fact's turn against the
    stored fact's turn. Of a turn's eligible facts, the one nearest the stored fact by cosine
    of the facts' own texts (at least `MIN_COSINE`) takes the key, so "I moved to Bristol and
    love the beaches" keys the move, not the beaches.

    Args:
        records: the conversation's facts after `kgmem.ingest.extraction.supersession.assign_keys`.
        stored: stored keyed facts, ``{"id", "key", "serial", "embedding", "turn_text",
            "turn_embedding"}`` rows (``read/keyed_fact_vectors``); records override stored
            rows of the same id.
        turn_texts: turn id -> text of the turns ``records`` cite.
        encode: the embedder's ``encode`` (texts -> ``(n, d)`` unit vectors); called once,
            only when some fact is eligible and its holder has a keyed fact.
        models: the truth models (default the shipped ones).

    Returns:
        the records (same order; adopters copied with the key) and one `Adoption` per adopter.
    """
    eligible = [f for f in records if _eligible(f) and f.cites and f.cites[0] in turn_texts]
    holders = {key_holder(f.subject) for f in eligible}
    if not holders:
        return list(records), []
    unkeyed = {f.id for f in records if not f.key}  # a key an earlier run gave: decided again
    pool = {str(row["id"]): row for row in stored if _in_pool(row, holders, unkeyed)}
    keyed_new = [
        f
        for f in records
        if f.key and f.key.split("|", 1)[0] in holders and f.cites and f.cites[0] in turn_texts
    ]
    for f in keyed_new:
        pool.pop(f.id, None)
    if not pool and not keyed_new:
        return list(records), []
    turns = sorted({turn_texts[f.cites[0]] for f in [*eligible, *keyed_new]})
    texts = [f.text for f in eligible] + [f.text for f in keyed_new] + turns
    vectors = np.asarray(encode(texts), dtype=np.float32)
    turn_vec = dict(zip(turns, vectors[len(eligible) + len(keyed_new) :], strict=True))
    candidates = [
        _Keyed(
            i,
            str(row["key"]),
            int(row.get("serial") or 0),
            np.asarray(row["embedding"], dtype=np.float32),
            str(row.get("turn_text") or ""),
            np.asarray(row["turn_embedding"], dtype=np.float32),
        )
        for i, row in pool.items()
    ]
    for n, f in enumerate(keyed_new):
        text = turn_texts[f.cites[0]]
        vec = vectors[len(eligible) + n]
        candidates.append(_Keyed(f.id, str(f.key), f.serial, vec, text, turn_vec[text]))
    fact_vec = {f.id: vectors[n] for n, f in enumerate(eligible)}
    adoptions: dict[str, Adoption] = {}
    by_turn: dict[str, list[FactRecord]] = {}
    for f in eligible:
        by_turn.setdefault(f.cites[0], []).append(f)
    for turn_id, facts in by_turn.items():
        text = turn_texts[turn_id]
        for found in _turn_adoptions(facts, text, turn_vec[text], fact_vec, candidates, models):
            if found.fact_id not in adoptions or found.score > adoptions[found.fact_id].score:
                adoptions[found.fact_id] = found
    adoptions = _unruled(adoptions, records, eligible)
    out = [
        f.model_copy(update={"key": adoptions[f.id].key}) if f.id in adoptions else f
        for f in records
    ]
    return out, list(adoptions.values())


def _unruled(
    adoptions: Mapping[str, Adoption],
    records: Sequence[FactRecord],
    eligible: Sequence[FactRecord],
) -> dict[str, Adoption]:
    """``adoptions`` but those of a key a rule already gave a fact of the same turn: that
    statement is in the history once (a second copy would be a change to itself)."""
    ruled = {(f.cites[0], f.key) for f in records if f.key and f.cites}
    turn_of = {f.id: f.cites[0] for f in eligible}
    return {i: a for i, a in adoptions.items() if (turn_of[i], a.key) not in ruled}


def _in_pool(row: Mapping[str, Any], holders: set[str], unkeyed: set[str]) -> bool:
    """A stored keyed fact of one of ``holders``, with both vectors, that no record re-keys."""
    return bool(
        row.get("key")
        and row.get("embedding") is not None
        and row.get("turn_embedding") is not None
        and str(row["key"]).split("|", 1)[0] in holders
        and row["id"] not in unkeyed
    )


def _turn_adoptions(
    facts: Sequence[FactRecord],
    text: str,
    vector: Vector,
    fact_vec: Mapping[str, Vector],
    candidates: Sequence[_Keyed],
    models: TruthModels | None,
) -> list[Adoption]:
    """The adoptions of one turn's eligible ``facts`` (said in ``text``, embedded ``vector``)
    among the holders' keyed ``candidates`` from earlier turns."""
    stride = facts[0].serial // SERIAL_STRIDE
    holders = {key_holder(f.subject) for f in facts}
    older = [
        c
        for c in candidates
        if c.serial // SERIAL_STRIDE < stride and c.key.split("|", 1)[0] in holders
    ]
    if not older:
        return []
    facts_m = np.stack([fact_vec[f.id] for f in facts])
    cosines = facts_m @ np.stack([c.vector for c in older]).T  # (facts, candidates)
    near = np.argsort(-cosines.max(axis=0), kind="stable")[:CANDIDATES]
    near = near[cosines.max(axis=0)[near] >= MIN_COSINE]
    if not len(near):
        return []
    decisions = relation(
        np.stack([older[i].turn_vector for i in near]),
        vector,
        text,
        [older[i].turn_text for i in near],
        models,
    )
    out = []
    for idx, decision in zip(near, decisions, strict=True):
        mass = sum(decision.scores[label] for label in ADOPT_LABELS)
        if mass < ADOPT_SCORE:
            continue
        candidate = older[int(idx)]
        adopter = facts[int(np.argmax(cosines[:, idx]))]
        if key_holder(adopter.subject) != candidate.key.split("|", 1)[0]:
            continue
        label = max(sorted(ADOPT_LABELS), key=lambda name: decision.scores[name])
        out.append(Adoption(adopter.id, candidate.id, candidate.key, label, mass))
    return out
