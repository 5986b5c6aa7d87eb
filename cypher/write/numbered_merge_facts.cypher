// Upsert facts of a numbered fact list with their ABOUT edges (idempotent). Entities first.
// Numbered facts have no turns (no CITES) and no clock (valid_from / valid_to stay null).
// :param rows => [{id: 'mab:fact:0', conversation_id: 'mab', subject: 'mab:entity:thomas kyd', relation: 'place_of_birth', object: 'mab:entity:london', text: 'Thomas Kyd was born in the city of London.', serial: 0, key: 'mab:entity:thomas kyd|place_of_birth', confidence: 1.0, source: 'manual'}]
UNWIND $rows AS row
MATCH (s:Entity {id: row.subject})
MATCH (o:Entity {id: row.object})
MERGE (f:Fact {id: row.id})
SET f.conversation_id = row.conversation_id,
    f.subject = row.subject,
    f.relation = row.relation,
    f.object = row.object,
    f.text = row.text,
    f.serial = row.serial,
    f.key = row.key,
    f.confidence = row.confidence,
    f.source = row.source
MERGE (f)-[:ABOUT {role: 'subject'}]->(s)
MERGE (f)-[:ABOUT {role: 'object'}]->(o)
