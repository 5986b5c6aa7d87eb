// Exact top-k turns of ONE conversation by cosine similarity (brute force over the tenant's
// turns, so no result is lost to a global ANN cut). Neo4j's vector.similarity.cosine returns
// (1 + cos) / 2 in [0, 1]; we return the raw cosine in [-1, 1].
// :param conversation_id => 'conv-26'
// :param embedding => [0.1, ...]   (384 floats)
// :param k => 10
MATCH (t:Turn {conversation_id: $conversation_id})
WHERE t.request IS NULL  // a memory-request turn is never an answer
WITH t, 2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine
ORDER BY cosine DESC, t.index ASC
LIMIT $k
RETURN t.id AS turn_id, t.text AS text, t.speaker AS speaker, t.session AS session,
       t.index AS index, t.observed_at AS observed_at, cosine
