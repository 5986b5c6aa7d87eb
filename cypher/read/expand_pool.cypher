// Bounded, typed expansion from the resolved evidence in ONE round trip; neither part returns
// turns already in the pool ($exclude). Cosines raw, in [-1, 1].
//   events    ≤ $k_events turns cited by facts (confidence >= $min_confidence) that share an
//             Event (MEMBER_OF) with the seed facts $fact_ids
//   timeline  ≤ $k_timeline NEXT neighbours (one step either way) of the seed turns $turn_ids
// :param fact_ids => ['conv-26:x:D1:3:0']
// :param turn_ids => ['conv-26:D1:3']
// :param exclude => ['conv-26:D1:3']
// :param embedding => [0.1, ...]
// :param k_events => 8
// :param k_timeline => 8
// :param min_confidence => 0.5
CALL {
  MATCH (seed:Fact)-[:MEMBER_OF]->(ev:Event)<-[:MEMBER_OF]-(f:Fact)-[:CITES]->(t:Turn)
  WHERE $k_events > 0 AND seed.id IN $fact_ids AND f.confidence >= $min_confidence
    AND NOT t.id IN $exclude
  WITH t, collect(DISTINCT ev.id)[0] AS event_id
  WITH t, event_id, 2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine
  ORDER BY cosine DESC, t.index ASC
  LIMIT $k_events
  RETURN 'events' AS generator, t, cosine, event_id
  UNION ALL
  MATCH (seed:Turn)-[:NEXT]-(t:Turn)
  WHERE $k_timeline > 0 AND seed.id IN $turn_ids AND NOT t.id IN $exclude
  WITH DISTINCT t
  WITH t, 2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine
  ORDER BY cosine DESC, t.index ASC
  LIMIT $k_timeline
  RETURN 'timeline' AS generator, t, cosine, null AS event_id
}
RETURN generator, t.id AS turn_id, t.text AS text, t.speaker AS speaker, t.session AS session,
       t.index AS index, t.observed_at AS observed_at, cosine, event_id
