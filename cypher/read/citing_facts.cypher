// For candidate turns: the best-matching fact citing each (max cosine to the question), with
// its resolved event time. Cosines raw, in [-1, 1].
// :param turn_ids => ['conv-26:D1:3']
// :param embedding => [0.1, ...]
// :param sources => null
UNWIND $turn_ids AS turn_id
MATCH (t:Turn {id: turn_id})<-[:CITES]-(f:Fact)
WHERE f.embedding IS NOT NULL AND ($sources IS NULL OR f.source IN $sources)
WITH t, f, 2.0 * vector.similarity.cosine(f.embedding, $embedding) - 1.0 AS fact_cosine
ORDER BY fact_cosine DESC
WITH t, collect({fact_id: f.id, fact_cosine: fact_cosine, event_time: f.event_time,
                 event_end: f.event_end, event_granularity: f.event_granularity,
                 event_phrase: f.event_phrase})[0] AS best
RETURN t.id AS turn_id, best.fact_id AS fact_id, best.fact_cosine AS fact_cosine,
       best.event_time AS event_time, best.event_end AS event_end,
       best.event_granularity AS event_granularity, best.event_phrase AS event_phrase
