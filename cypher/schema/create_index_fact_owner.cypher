// Owner -> its facts (the owner's supersession links over all its threads, kgmem.ingest.writing.threads).
CREATE INDEX fact_owner IF NOT EXISTS FOR (f:Fact) ON (f.owner)
