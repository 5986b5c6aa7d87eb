CREATE INDEX event_conversation IF NOT EXISTS FOR (e:Event) ON (e.conversation_id)
