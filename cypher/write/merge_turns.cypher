// Turns (immutable raw utterances) with their embeddings, linked to their Session.
// $rows: [{id, conversation_id, session, session_id, index, dia_id, speaker, text, observed_at, embedding}]
// The MERGE key includes conversation_id (the unique constraint is on id alone): an id that
// another conversation already holds fails the batch with a constraint error instead of
// silently moving that tenant's node (found by tests/integration/test_isolation.py).
UNWIND $rows AS row
MERGE (t:Turn {id: row.id, conversation_id: row.conversation_id})
SET t.session = row.session,
    t.index = row.index,
    t.dia_id = row.dia_id,
    t.speaker = row.speaker,
    t.text = row.text,
    t.observed_at = row.observed_at
WITH t, row
CALL db.create.setNodeVectorProperty(t, 'embedding', row.embedding)
WITH t, row
MATCH (s:Session {id: row.session_id, conversation_id: row.conversation_id})
MERGE (t)-[:IN_SESSION]->(s)
