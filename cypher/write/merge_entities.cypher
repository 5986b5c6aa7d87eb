// Canonical typed entities (scoped to a conversation). Aliases accumulate, never shrink.
// Bumps the Conversation's version (the planner caches entity names).
// $rows: [{id, conversation_id, name, type, aliases, aliases_text}]
// The MERGE key includes conversation_id (the unique constraint is on id alone): an id that
// another conversation already holds fails the batch with a constraint error instead of
// silently moving that tenant's node into this conversation.
UNWIND $rows AS row
MERGE (e:Entity {id: row.id, conversation_id: row.conversation_id})
SET e.name = row.name,
    e.type = row.type,
    e.aliases = row.aliases,
    e.aliases_text = row.aliases_text
WITH DISTINCT row.conversation_id AS conversation_id
MERGE (c:Conversation {id: conversation_id})
SET c.version = randomUUID()
