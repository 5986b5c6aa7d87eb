// Every turn of a conversation in utterance order (no embeddings), to re-derive its facts.
// :param conversation_id => 'conv-26'
MATCH (t:Turn {conversation_id: $conversation_id})
RETURN t.id AS id, t.index AS index, t.session AS session, t.dia_id AS dia_id,
       t.speaker AS speaker, t.text AS text, t.observed_at AS observed_at,
       t.role AS role, coalesce(t.request, false) AS request, t.source AS source,
       coalesce(t.source_kind, 'chat') AS source_kind
ORDER BY t.index
