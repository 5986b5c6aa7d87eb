// The ids of one owner's conversations, sorted.
// :param owner => 'alice'
MATCH (c:Conversation {owner: $owner})
RETURN c.id AS conversation_id
ORDER BY conversation_id
