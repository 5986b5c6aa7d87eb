"""The ingest pipeline a write runs, built from the settings: the fact extractors (loaded once,
lazily) and the memory-request policy (`kgmem.api.Memory` delegates here)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kgmem.config import Settings
from kgmem.embed import Embedder
from kgmem.ingest.pipeline import Ingestor
from kgmem.ingest.report import FactSources
from kgmem.ingest.requests.decision import THRESHOLD as REQUEST_THRESHOLD
from kgmem.ingest.requests.rules import RequestPolicy
from kgmem.roles import check_roles
from kgmem.store import Store

__all__ = ["Ingestors"]


class Ingestors:
    """Builds an `Ingestor` per write over one store, embedder and extractor set."""

    def __init__(self, store: Store, embedder: Embedder, settings: Settings) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self._extractor: Any = None

    @property
    def extractor(self) -> Any:
        """The rule-based fact extractors, loaded lazily: spaCy clauses, lexicon statements
        (`kgmem.ingest.extraction.relations`) and value-form statements
        (`kgmem.ingest.extraction.attributes`)."""
        if self._extractor is None:
            from kgmem.ingest.extraction.extract import SpacyExtractor
            from kgmem.ingest.extraction.relations import CombinedExtractor, RelationExtractor
            from kgmem.ingest.extraction.value_statements import ValueExtractor

            self._extractor = CombinedExtractor(
                [
                    SpacyExtractor(
                        self.settings.spacy_model, max_chars=self.settings.extract_chars or None
                    ),
                    RelationExtractor(),
                    ValueExtractor(),
                ]
            )
        return self._extractor

    @extractor.setter
    def extractor(self, extractor: Any) -> None:
        """Share extractors already loaded (a forked worker reuses its parent's)."""
        self._extractor = extractor

    @property
    def request_policy(self) -> RequestPolicy:
        """Who may make memory requests, and their limits, from the ``KGMEM_REQUESTS`` and
        ``KGMEM_REQUEST_*`` settings."""
        s = self.settings
        return RequestPolicy(
            enabled=s.requests,
            roles=frozenset(check_roles({r: r for r in s.request_roles}).values()),
            max_turns=s.request_max_turns,
            similarity=s.request_similarity,
            decision=REQUEST_THRESHOLD if s.request_decision else None,
        )

    def ingestor(self, facts: FactSources, *, requests: bool | None = None) -> Ingestor:
        """An ingestor that builds ``facts`` and applies memory requests unless ``requests``
        is False (None: ``Settings.requests``)."""
        extractor = self.extractor if facts in ("extracted", "both") else None
        policy = self.request_policy
        if requests is not None:
            policy = replace(policy, enabled=requests)
        return Ingestor(
            self.store,
            self.embedder,
            extractor=extractor,
            batch_size=self.settings.write_batch_size,
            requests=policy,
            spacy_model=self.settings.spacy_model,
            attribute_similarity=self.settings.attribute_similarity,
        )
