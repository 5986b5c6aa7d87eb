// Sessions of a conversation, for browsing. $rows: [{id, conversation_id, session, started_at}]
UNWIND $rows AS row
MERGE (s:Session {id: row.id})
SET s.conversation_id = row.conversation_id,
    s.session = row.session,
    s.started_at = row.started_at
