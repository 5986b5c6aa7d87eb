// Which of the given turn ids a conversation has forgotten (Memory.forget_turns).
// :param conversation_id => 'conv-26'
// :param turn_ids => ['conv-26:D1:3']
UNWIND $turn_ids AS turn_id
MATCH (g:ForgottenTurn {id: turn_id})
WHERE g.conversation_id = $conversation_id
RETURN g.id AS id
