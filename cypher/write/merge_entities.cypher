// Canonical typed entities (scoped to a conversation). Aliases accumulate, never shrink.
// $rows: [{id, conversation_id, name, type, aliases, aliases_text}]
UNWIND $rows AS row
MERGE (e:Entity {id: row.id})
SET e.conversation_id = row.conversation_id,
    e.name = row.name,
    e.type = row.type,
    e.aliases = row.aliases,
    e.aliases_text = row.aliases_text
