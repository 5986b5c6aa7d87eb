// Stateful hop 2: a structured query built from nodes resolved in hop 1 — facts whose subject
// or object is one of $entity_ids (optionally only $relations, optionally inside the time window
// [$start, $end)), confidence >= $min_confidence; the turns they cite, at most $k, ranked by the
// fact's cosine to the hop-1 evidence ($embedding = the winning fact's embedding is NOT used;
// the question embedding only orders ties). No text is re-embedded.
// :param conversation_id => 'conv-26'
// :param entity_ids => ['conv-26:e:other:support-group']
// :param relations => null
// :param start => null
// :param end => null
// :param exclude => []
// :param embedding => [0.1, ...]
// :param k => 8
// :param min_confidence => 0.5
MATCH (e:Entity)<-[a:ABOUT]-(f:Fact {conversation_id: $conversation_id})-[:CITES]->(t:Turn)
WHERE e.id IN $entity_ids
  AND f.confidence >= $min_confidence
  AND ($relations IS NULL OR f.relation IN $relations)
  AND ($start IS NULL OR (f.event_time IS NOT NULL AND f.event_time < $end AND coalesce(f.event_end, f.event_time) > $start)
       OR (f.event_time IS NULL AND t.observed_at >= $start AND t.observed_at < $end))
  AND NOT t.id IN $exclude
WITH t, f, e, 2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine
ORDER BY cosine DESC, t.index ASC
WITH t, cosine, collect(f.id)[0] AS fact_id, collect(e.id)[0] AS entity_id
LIMIT $k
RETURN t.id AS turn_id, t.text AS text, t.speaker AS speaker, t.session AS session,
       t.index AS index, t.observed_at AS observed_at, cosine, fact_id, entity_id
