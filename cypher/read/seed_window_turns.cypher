// Turns in the time window a dated question names: said during [$start, $end) or cited by a fact
// whose resolved event_time overlaps it; best cos(turn, q) first, at most $k.
// :param conversation_id => 'conv-26'
// :param start => datetime('2023-05-01T00:00:00Z')
// :param end => datetime('2023-06-01T00:00:00Z')
// :param embedding => [0.1, ...]
// :param k => 10
CALL {
  MATCH (t:Turn {conversation_id: $conversation_id})
  WHERE t.observed_at >= $start AND t.observed_at < $end
  RETURN t
  UNION
  MATCH (f:Fact {conversation_id: $conversation_id})-[:CITES]->(t:Turn)
  WHERE f.event_time IS NOT NULL AND f.event_time < $end AND coalesce(f.event_end, f.event_time) > $start
  RETURN t
}
WITH t, 2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine
ORDER BY cosine DESC, t.index ASC
LIMIT $k
RETURN t.id AS turn_id, t.text AS text, t.speaker AS speaker, t.session AS session,
       t.index AS index, t.observed_at AS observed_at, cosine
