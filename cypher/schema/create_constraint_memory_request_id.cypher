// One audit record per memory request (kgmem.ingest.requests.rules); re-ingest merges into it.
CREATE CONSTRAINT memory_request_id IF NOT EXISTS FOR (r:MemoryRequest) REQUIRE r.id IS UNIQUE
