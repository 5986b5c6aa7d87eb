// BM25 seeds over fact text, scoped to ONE conversation (global index scanned to $scan, then
// filtered by tenant and source); each fact brings the turns it cites.
// :param conversation_id => 'conv-26'
// :param query => 'support group'
// :param embedding => [0.1, ...]
// :param k => 10
// :param scan => 500
// :param sources => null
CALL db.index.fulltext.queryNodes('fact_text', $query, {limit: $scan}) YIELD node, score
WITH node AS f, score
WHERE f.conversation_id = $conversation_id AND ($sources IS NULL OR f.source IN $sources)
WITH f, score
ORDER BY score DESC, f.id ASC
LIMIT $k
MATCH (f)-[:CITES]->(t:Turn)
RETURN f.id AS fact_id, score AS bm25,
       2.0 * vector.similarity.cosine(f.embedding, $embedding) - 1.0 AS fact_cosine,
       f.event_time AS event_time,
       t.id AS turn_id, t.text AS text, t.speaker AS speaker, t.session AS session,
       t.index AS index, t.observed_at AS observed_at,
       2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine
