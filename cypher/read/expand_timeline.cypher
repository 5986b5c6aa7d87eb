// Bounded expansion along the timeline: the NEXT neighbours (one step either way) of the given
// turns, excluding turns already in the pool; at most $k, best cos(turn, q) first.
// :param turn_ids => ['conv-26:D1:3']
// :param exclude => ['conv-26:D1:3']
// :param embedding => [0.1, ...]
// :param k => 8
MATCH (seed:Turn)-[:NEXT]-(t:Turn)
WHERE seed.id IN $turn_ids AND NOT t.id IN $exclude
WITH DISTINCT t, 2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine
ORDER BY cosine DESC, t.index ASC
LIMIT $k
RETURN t.id AS turn_id, t.text AS text, t.speaker AS speaker, t.session AS session,
       t.index AS index, t.observed_at AS observed_at, cosine
