// The turns of the searched conversations whose text holds a phrase (case-insensitive), for a
// search's `exact` option (kgmem.steer): an identifier, an error message, a name in code.
// Memory-request turns are never answers. Bounded by $limit, earliest first.
// :param conversation_ids => ['conv-26']
// :param phrase => 'order 4417'
// :param limit => 200
MATCH (t:Turn)
WHERE t.conversation_id IN $conversation_ids
  AND t.request IS NULL
  AND toLower(t.text) CONTAINS toLower($phrase)
RETURN t.id AS turn_id, t.conversation_id AS conversation_id, t.text AS text,
       t.speaker AS speaker, t.session AS session, t.observed_at AS observed_at,
       t.source AS source, t.embedding AS embedding
ORDER BY t.conversation_id, t.index
LIMIT $limit
