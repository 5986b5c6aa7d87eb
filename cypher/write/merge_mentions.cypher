// (:Turn)-[:MENTIONS]->(:Entity). $rows: [{turn_id, entity_id}]
UNWIND $rows AS row
MATCH (t:Turn {id: row.turn_id}), (e:Entity {id: row.entity_id})
// never across tenants: the turn's own conversation, or its owner's shared entities
WHERE t.conversation_id = e.conversation_id OR (t.owner <> '' AND e.owner = t.owner)
MERGE (t)-[:MENTIONS]->(e)
