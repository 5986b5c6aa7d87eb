// Supersession lookups: (conversation, key) -> facts by serial.
CREATE INDEX fact_key IF NOT EXISTS FOR (f:Fact) ON (f.conversation_id, f.key)
