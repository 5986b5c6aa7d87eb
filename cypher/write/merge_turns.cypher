// Turns (immutable raw utterances) with their embeddings, linked to their Session.
// $rows: [{id, conversation_id, session, session_id, index, dia_id, speaker, text, observed_at, embedding}]
UNWIND $rows AS row
MERGE (t:Turn {id: row.id})
SET t.conversation_id = row.conversation_id,
    t.session = row.session,
    t.index = row.index,
    t.dia_id = row.dia_id,
    t.speaker = row.speaker,
    t.text = row.text,
    t.observed_at = row.observed_at
WITH t, row
CALL db.create.setNodeVectorProperty(t, 'embedding', row.embedding)
WITH t, row
MATCH (s:Session {id: row.session_id})
MERGE (t)-[:IN_SESSION]->(s)
