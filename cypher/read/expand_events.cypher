// Bounded expansion through events: from the seed facts, their events (MEMBER_OF), the other
// member facts with confidence >= $min_confidence, and the turns those cite; at most $k turns,
// best cos(turn, q) first, excluding turns already in the pool.
// :param fact_ids => ['conv-26:x:D1:3:0']
// :param exclude => ['conv-26:D1:3']
// :param embedding => [0.1, ...]
// :param k => 8
// :param min_confidence => 0.5
MATCH (seed:Fact)-[:MEMBER_OF]->(ev:Event)<-[:MEMBER_OF]-(f:Fact)-[:CITES]->(t:Turn)
WHERE seed.id IN $fact_ids AND f.confidence >= $min_confidence AND NOT t.id IN $exclude
WITH t, collect(DISTINCT ev.id)[0] AS event_id, collect(DISTINCT f.id)[0] AS fact_id
WITH t, event_id, fact_id, 2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine
ORDER BY cosine DESC, t.index ASC
LIMIT $k
RETURN t.id AS turn_id, t.text AS text, t.speaker AS speaker, t.session AS session,
       t.index AS index, t.observed_at AS observed_at, cosine, event_id, fact_id
