// (:Turn)-[:MENTIONS]->(:Entity). $rows: [{turn_id, entity_id}]
UNWIND $rows AS row
MATCH (t:Turn {id: row.turn_id}), (e:Entity {id: row.entity_id})
WHERE t.conversation_id = e.conversation_id  // never across tenants
MERGE (t)-[:MENTIONS]->(e)
