// Whether a conversation exists (its Conversation node or any of its turns) and its owner:
// what the HTTP service's access check needs (kgmem.service.access).
// :param conversation_id => 'thread-3'
OPTIONAL MATCH (c:Conversation {id: $conversation_id})
RETURN c.owner AS owner,
       c IS NOT NULL OR EXISTS { MATCH (t:Turn {conversation_id: $conversation_id}) } AS exists
