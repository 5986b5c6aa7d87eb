// The turns a chain walk's facts cite, for the turns not yet in the search pool: each turn of
// conversation $conversation_id among $turn_ids with its cosine to the question and its best
// citing fact (max cosine; of fact sources $sources, null = all). Cosines raw, in [-1, 1] (vector.similarity.cosine is (1 + cos) / 2).
// :param conversation_id => 'factconsolidation_mh_6k'
// :param turn_ids => ['factconsolidation_mh_6k:L1:8']
// :param embedding => [0.1, ...]
// :param sources => null
UNWIND $turn_ids AS turn_id
MATCH (t:Turn {id: turn_id})
WHERE t.conversation_id = $conversation_id
OPTIONAL MATCH (t)<-[:CITES]-(f:Fact)
WHERE f.embedding IS NOT NULL AND ($sources IS NULL OR f.source IN $sources)
WITH t, f, CASE WHEN f IS NULL THEN null
           ELSE 2.0 * vector.similarity.cosine(f.embedding, $embedding) - 1.0 END AS fact_cosine
ORDER BY fact_cosine DESC
WITH t, collect(CASE WHEN f IS NULL THEN null
                ELSE {fact_id: f.id, fact_cosine: fact_cosine} END)[0] AS best
RETURN t.id AS turn_id, t.text AS text, t.speaker AS speaker, t.session AS session,
       t.index AS index, t.observed_at AS observed_at,
       2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine,
       best.fact_id AS fact_id, best.fact_cosine AS fact_cosine
ORDER BY t.index
