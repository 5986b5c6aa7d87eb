// The latest turn of a conversation (to append after it).
// :param conversation_id => 'conv-26'
MATCH (t:Turn {conversation_id: $conversation_id})
RETURN t.id AS id, t.index AS index, t.session AS session
ORDER BY t.index DESC
LIMIT 1
