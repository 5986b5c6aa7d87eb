// Atomic facts with embeddings, CITES edges to their source turns and ABOUT edges to entities.
// valid_to is owned by write/merge_supersedes and never set here.
// $rows: [{id, conversation_id, subject, relation, object, text, source, event_time, event_end,
//          event_granularity, event_phrase, valid_from, key, serial, confidence, session,
//          embedding, cites: [turn id], about: [{entity_id, role}]}]
UNWIND $rows AS row
MERGE (f:Fact {id: row.id})
SET f.conversation_id = row.conversation_id,
    f.subject = row.subject,
    f.relation = row.relation,
    f.object = row.object,
    f.text = row.text,
    f.source = row.source,
    f.event_time = row.event_time,
    f.event_end = row.event_end,
    f.event_granularity = row.event_granularity,
    f.event_phrase = row.event_phrase,
    f.valid_from = row.valid_from,
    f.key = row.key,
    f.serial = row.serial,
    f.confidence = row.confidence,
    f.session = row.session
WITH f, row
CALL db.create.setNodeVectorProperty(f, 'embedding', row.embedding)
WITH f, row
CALL {
  WITH f, row
  UNWIND row.cites AS turn_id
  MATCH (t:Turn {id: turn_id})
  MERGE (f)-[:CITES]->(t)
  RETURN count(*) AS cited
}
CALL {
  WITH f, row
  UNWIND row.about AS link
  MATCH (e:Entity {id: link.entity_id})
  MERGE (f)-[a:ABOUT {role: link.role}]->(e)
  RETURN count(*) AS linked
}
RETURN count(f) AS facts
