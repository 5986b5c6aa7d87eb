// Which of the given turn ids a conversation already holds (appends skip them).
// :param conversation_id => 'conv-26'
// :param turn_ids => ['conv-26:D1:3']
UNWIND $turn_ids AS turn_id
MATCH (t:Turn {id: turn_id})
WHERE t.conversation_id = $conversation_id
RETURN t.id AS id
