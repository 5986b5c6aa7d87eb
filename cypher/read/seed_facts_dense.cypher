// Dense seeds over facts of ONE conversation (exact cosine, tenant-scoped), each with the turns
// it cites and those turns' cosine to the question. Cosines are raw, in [-1, 1].
// :param conversation_id => 'conv-26'
// :param embedding => [0.1, ...]
// :param k => 20
// :param sources => null        (or ['annotation'], ['extracted'])
MATCH (f:Fact {conversation_id: $conversation_id})
WHERE f.embedding IS NOT NULL AND ($sources IS NULL OR f.source IN $sources)
WITH f, 2.0 * vector.similarity.cosine(f.embedding, $embedding) - 1.0 AS fact_cosine
ORDER BY fact_cosine DESC, f.id ASC
LIMIT $k
MATCH (f)-[:CITES]->(t:Turn)
RETURN f.id AS fact_id, f.text AS fact_text, f.source AS source, fact_cosine,
       f.event_time AS event_time, f.event_end AS event_end,
       f.event_granularity AS event_granularity, f.event_phrase AS event_phrase,
       t.id AS turn_id, t.text AS text, t.speaker AS speaker, t.session AS session,
       t.index AS index, t.observed_at AS observed_at,
       2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine
