// Tenant scoping: every read filters by conversation_id.
CREATE INDEX turn_conversation IF NOT EXISTS FOR (t:Turn) ON (t.conversation_id)
