CREATE INDEX entity_conversation IF NOT EXISTS FOR (e:Entity) ON (e.conversation_id)
