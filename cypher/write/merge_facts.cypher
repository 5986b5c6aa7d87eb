// Atomic facts with embeddings, CITES edges to their source turns and ABOUT edges to entities.
// valid_to is owned by write/merge_supersedes and never set here.
// $rows: [{id, conversation_id, tk, subject, relation, object, text, source, event_time, event_end,
//          event_granularity, event_phrase, valid_from, key, serial, confidence, session,
//          modality, informant, reporter, attribute, value, value_type, multiplicity,
//          holder, thing, embedding, cites: [turn id],
//          about: [{entity_id, role}]}]
// The MERGE key includes conversation_id (the unique constraint is on id alone): an id that
// another conversation already holds fails the batch with a constraint error instead of
// silently moving that tenant's node into this conversation.
// CITES only reach turns of the fact's own conversation; ABOUT reaches entities of its own
// conversation or, in an owned conversation, the owner's shared entities (kgmem.ingest.writing.threads).
// `owner` and the owner's token in `tk` come from the Conversation (see write/merge_turns).
UNWIND $rows AS row
OPTIONAL MATCH (owned:Conversation {id: row.conversation_id})
MERGE (f:Fact {id: row.id, conversation_id: row.conversation_id})
SET f.tk = row.tk + coalesce(' ' + owned.owner_tk, ''),
    f.owner = coalesce(owned.owner, ''),
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
    f.session = row.session,
    f.modality = coalesce(row.modality, 'asserted'),
    f.informant = row.informant,
    f.reporter = row.reporter,
    f.attribute = row.attribute,
    f.value = row.value,
    f.value_type = row.value_type,
    f.multiplicity = row.multiplicity,
    f.holder = row.holder,
    f.thing = row.thing
WITH f, row
CALL db.create.setNodeVectorProperty(f, 'embedding', row.embedding)
WITH f, row
CALL {
  WITH f, row
  UNWIND row.cites AS turn_id
  MATCH (t:Turn {id: turn_id, conversation_id: row.conversation_id})
  MERGE (f)-[:CITES]->(t)
  RETURN count(*) AS cited
}
CALL {
  WITH f, row
  UNWIND row.about AS link
  MATCH (e:Entity {id: link.entity_id})
  WHERE e.conversation_id = row.conversation_id OR (f.owner <> '' AND e.owner = f.owner)
  MERGE (f)-[a:ABOUT {role: link.role}]->(e)
  RETURN count(*) AS linked
}
RETURN count(f) AS facts
