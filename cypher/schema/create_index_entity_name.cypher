CREATE INDEX entity_name IF NOT EXISTS FOR (e:Entity) ON (e.conversation_id, e.name)
