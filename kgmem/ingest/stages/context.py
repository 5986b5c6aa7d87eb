"""The one context every stage of the write path shares: the store, the embedder, the
extractor, the writer and the request policy, and the facts extracted from turns
(`kgmem.ingest.pipeline.Ingestor` runs the stages: `kgmem.ingest.stages.forgetting.ForgetStage`,
`kgmem.ingest.stages.requests.RequestStage`)."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from kgmem.config import shipped_default
from kgmem.embed import Embedder
from kgmem.ingest.extraction.attributes import assign_attributes
from kgmem.ingest.extraction.extract import Extraction, FactExtractor
from kgmem.ingest.extraction.nlp import DEFAULT_PIPELINE
from kgmem.ingest.extraction.own_facts import own_facts
from kgmem.ingest.extraction.standing import derive_standing
from kgmem.ingest.requests.rules import RequestPolicy
from kgmem.ingest.writing.threads import OwnerThreads, drop_document_persons, rescope
from kgmem.ingest.writing.writer import GraphWriter
from kgmem.models import TurnRecord
from kgmem.roles import DOCUMENT
from kgmem.store import Store

__all__ = ["IngestContext", "Stage"]


class IngestContext:
    """The state the stages of an `kgmem.ingest.pipeline.Ingestor` share (its arguments are
    documented there)."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        *,
        extractor: FactExtractor | None = None,
        batch_size: int = 500,
        requests: RequestPolicy | None = None,
        spacy_model: str = DEFAULT_PIPELINE,
        attribute_similarity: float = shipped_default("attribute_similarity"),
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.extractor = extractor
        self.batch_size = max(1, batch_size)
        self.writer = GraphWriter(store)
        self.policy = requests if requests is not None else RequestPolicy()
        self.spacy_model = spacy_model
        self.attribute_similarity = attribute_similarity
        self.threads = OwnerThreads(store)
        self._vectors: dict[str, npt.NDArray[np.float32]] = {}
        self.embed_seconds = 0.0
        """Wall seconds `encode` spent in the embedder since `forget_vectors`."""

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """The embedder's ``encode``, remembering each text's vector until `forget_vectors`, so
        one write embeds a text once however many of its stages need it: the request decision
        embeds user turns (and the turns before them) whole before the turns are written, the
        relation decision the cited turns and fact texts that are then written, attribute
        assignment and standing rules their phrases. A vector depends on its text alone, so a
        remembered one is never stale; `forget_vectors` only bounds memory."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing:
            started = time.perf_counter()
            self._vectors.update(zip(missing, self.embedder.encode(missing), strict=True))
            self.embed_seconds += time.perf_counter() - started
        if not texts:
            return self.embedder.encode(texts)
        return np.stack([self._vectors[t] for t in texts])

    def forget_vectors(self) -> None:
        """Drop the vectors `encode` remembered and zero `embed_seconds` (at the start of each
        write)."""
        self._vectors.clear()
        self.embed_seconds = 0.0

    def extract(
        self,
        cid: str,
        turns: Sequence[TurnRecord],
        speakers: Sequence[str],
        owner: str | None = None,
    ) -> Extraction:
        """The extractor's output over ``turns``, keeping only facts the turns may state; a
        document's name is no person; with ``owner``, the entities are the owner's shared ones
        (`kgmem.ingest.writing.threads`)."""
        assert self.extractor is not None
        documents = {t.speaker for t in turns if t.role == DOCUMENT}
        speakers = [s for s in speakers if s not in documents]
        kept = own_facts(self.extractor.extract(cid, turns, speakers), turns)
        kept = rescope(drop_document_persons(kept, documents), cid, owner)
        facts = assign_attributes(  # attribute values
            kept.facts, self.encode, self.attribute_similarity
        )
        return Extraction(facts=facts, entities=kept.entities, mentions=kept.mentions)

    def derive_standing(self, cid: str) -> None:
        """The conversation's standing instructions and conflicts, derived again from its user
        turns (`kgmem.ingest.extraction.standing.derive_standing`)."""
        derive_standing(self.store, self.encode, cid)

    def supersede_owner(self, cid: str) -> None:
        """In an owned conversation, the owner's current values over all its threads
        (`kgmem.ingest.writing.threads.OwnerThreads.supersede`); nothing without an owner."""
        owner = self.threads.owner(cid)
        if owner is not None:
            self.threads.supersede(owner)


class Stage:
    """A stage of the write path: reads the shared `IngestContext` (``ctx``) through the names
    below, and holds no state of its own beyond the stages it calls."""

    def __init__(self, ctx: IngestContext) -> None:
        self.ctx = ctx

    @property
    def store(self) -> Store:
        return self.ctx.store

    @property
    def embedder(self) -> Embedder:
        return self.ctx.embedder

    @property
    def extractor(self) -> FactExtractor | None:
        return self.ctx.extractor

    @property
    def batch_size(self) -> int:
        return self.ctx.batch_size

    @property
    def writer(self) -> GraphWriter:
        return self.ctx.writer

    @property
    def policy(self) -> RequestPolicy:
        return self.ctx.policy

    @property
    def spacy_model(self) -> str:
        return self.ctx.spacy_model

    @property
    def threads(self) -> OwnerThreads:
        return self.ctx.threads
