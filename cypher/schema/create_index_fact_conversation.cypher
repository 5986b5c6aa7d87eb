CREATE INDEX fact_conversation IF NOT EXISTS FOR (f:Fact) ON (f.conversation_id)
