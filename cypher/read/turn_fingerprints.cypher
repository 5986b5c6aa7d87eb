// Which turns of a conversation are stored, with their text (to skip unchanged re-ingests).
// :param conversation_id => 'conv-26'
MATCH (t:Turn {conversation_id: $conversation_id})
RETURN t.id AS id, t.text AS text, t.embedding IS NOT NULL AS embedded,
       t.role AS role, coalesce(t.request, false) AS request
