// Turns reached from resolved canonical entities: turns that MENTION them and turns cited by
// facts ABOUT them (confidence >= $min_confidence), best cos(turn, q) first, at most $k.
// :param conversation_id => 'conv-26'
// :param entity_ids => ['conv-26:e:other:support-group']
// :param embedding => [0.1, ...]
// :param k => 10
// :param min_confidence => 0.5
MATCH (e:Entity {conversation_id: $conversation_id})
WHERE e.id IN $entity_ids
CALL {
  WITH e
  MATCH (e)<-[:MENTIONS]-(t:Turn)
  RETURN t, e.id AS via
  UNION
  WITH e
  MATCH (e)<-[:ABOUT]-(f:Fact)-[:CITES]->(t:Turn)
  WHERE f.confidence >= $min_confidence
  RETURN t, e.id AS via
}
WITH t, collect(DISTINCT via) AS via
WITH t, via, 2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine
ORDER BY cosine DESC, t.index ASC
LIMIT $k
RETURN t.id AS turn_id, t.text AS text, t.speaker AS speaker, t.session AS session,
       t.index AS index, t.observed_at AS observed_at, cosine, via
