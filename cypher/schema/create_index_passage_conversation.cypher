// Passages by conversation (forgetting a conversation deletes its passages).
CREATE INDEX passage_conversation IF NOT EXISTS FOR (p:Passage) ON (p.conversation_id)
