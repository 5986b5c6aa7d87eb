// Sessions of a conversation, for browsing. $rows: [{id, conversation_id, session, started_at}]
// The MERGE key includes conversation_id (the unique constraint is on id alone): an id that
// another conversation already holds fails the batch with a constraint error instead of
// silently moving that tenant's node into this conversation.
UNWIND $rows AS row
MERGE (s:Session {id: row.id, conversation_id: row.conversation_id})
SET s.session = row.session,
    s.started_at = row.started_at
