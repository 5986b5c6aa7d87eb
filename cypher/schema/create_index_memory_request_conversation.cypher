// Audit records are read per conversation (`kgmem requests --conversation`, every ingest).
CREATE INDEX memory_request_conversation IF NOT EXISTS FOR (r:MemoryRequest) ON (r.conversation_id)
