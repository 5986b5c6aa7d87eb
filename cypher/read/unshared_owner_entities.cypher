// Owned conversations whose entities are still their own (the layout before an owner's threads
// shared their entities, kgmem.ingest.writing.threads): what `kgmem schema apply --rebuild` moves into
// the owner's scope. $conversation_id null: every such conversation; else only that one.
// :param conversation_id => null
MATCH (c:Conversation)
WHERE c.owner IS NOT NULL AND ($conversation_id IS NULL OR c.id = $conversation_id)
  AND EXISTS { MATCH (:Entity {conversation_id: c.id}) }
RETURN c.id AS conversation_id, c.owner AS owner,
       COUNT { MATCH (e:Entity {conversation_id: c.id}) } AS entities
ORDER BY conversation_id
