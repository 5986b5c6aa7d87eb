"""The stages of the write path (`kgmem.ingest.pipeline.Ingestor` runs them in order) and the
one context they share: the store, the embedder, the extractor, the writer, the request policy."""
