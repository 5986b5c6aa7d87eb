// Standing instructions and preferences (kgmem.ingest.extraction.standing), each STATED_IN its user turn.
// `kind` is 'instruction' or 'preference'; `scope` the typed scopes its text names;
// `revoked_at` the time a later statement revised or withdrew it (null while it stands);
// `revises` the id of the instruction it revised, if any.
// $rows: [{id, turn_id, kind, text, scope, valid_from, revoked_at, revises, score, embedding}]
UNWIND $rows AS row
MATCH (t:Turn {id: row.turn_id, conversation_id: $conversation_id})
MERGE (i:Instruction {id: row.id})
SET i.conversation_id = $conversation_id,
    i.kind = row.kind,
    i.text = row.text,
    i.scope = row.scope,
    i.valid_from = row.valid_from,
    i.revoked_at = row.revoked_at,
    i.revises = row.revises,
    i.score = row.score,
    i.embedding = row.embedding
MERGE (i)-[:STATED_IN]->(t)
