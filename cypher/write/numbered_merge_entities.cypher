// Upsert entities of a numbered fact list (idempotent). One row per entity.
// :param rows => [{id: 'mab:entity:london', conversation_id: 'mab', name: 'London', type: 'place', kind: 'city', aliases: [], aliases_text: ''}]
UNWIND $rows AS row
MERGE (e:Entity {id: row.id})
SET e.conversation_id = row.conversation_id,
    e.name = row.name,
    e.type = row.type,
    e.kind = row.kind,
    e.aliases = row.aliases,
    e.aliases_text = row.aliases_text
