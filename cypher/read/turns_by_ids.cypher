// Turns by id, with their cosine to the question (for candidates that a typed link, not text,
// brought in).
// :param turn_ids => ['conv-26:D1:3']
// :param conversation_id => 'conv-26'
// :param embedding => [0.1, ...]
UNWIND $turn_ids AS turn_id
MATCH (t:Turn {id: turn_id})
WHERE t.conversation_id = $conversation_id
RETURN t.id AS turn_id, t.text AS text, t.speaker AS speaker, t.session AS session,
       t.index AS index, t.observed_at AS observed_at,
       2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine
