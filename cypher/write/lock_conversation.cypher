// Take a conversation's write lock until the transaction ends. Every writer of a conversation
// (ingest batches, appends, forgetting turns) runs this first, so they queue instead of reading
// the same tail and losing turns. Setting the constant property takes Neo4j's
// exclusive node lock; the node holds no conversation data (it has no conversation_id).
// :param conversation_id => 'conv-26'
MERGE (c:Conversation {id: $conversation_id})
SET c.locked = true
RETURN c.id AS id
