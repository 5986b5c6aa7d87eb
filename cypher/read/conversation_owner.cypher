// The owner of one conversation (no row without an owner or a Conversation node).
// :param conversation_id => 'thread-3'
MATCH (c:Conversation {id: $conversation_id})
WHERE c.owner IS NOT NULL
RETURN c.owner AS owner
