// Owner -> its shared entities (kgmem.ingest.writing.threads: the owner's entity scope).
CREATE INDEX entity_owner IF NOT EXISTS FOR (e:Entity) ON (e.owner)
