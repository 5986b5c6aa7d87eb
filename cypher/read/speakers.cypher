// The speakers of a conversation, in order of first appearance.
// :param conversation_id => 'conv-26'
MATCH (t:Turn {conversation_id: $conversation_id})
WITH t.speaker AS speaker, min(t.index) AS first
RETURN speaker ORDER BY first
