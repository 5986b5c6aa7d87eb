// All seed generators of the linked engine in ONE round trip, each a small pool scoped to one
// conversation; a generator with k = 0 (or no input) contributes nothing. Every row is one
// candidate turn with the generator that brought it and what it matched. Cosines are raw, in
// [-1, 1] (Neo4j's vector.similarity.cosine is (1 + cos) / 2).
//   dense_turns  exact top-$k_turns turns by cosine
//   dense_facts  exact top-$k_facts facts by cosine (fact sources $sources), with cited turns
//   fulltext     BM25 top-$k_fulltext turns and facts (global Lucene index scanned to $scan,
//                then filtered by tenant); $ft_query is Lucene syntax escaped by the caller
//   entity       turns that MENTION, or are cited by facts ABOUT, the resolved $entity_ids
//   window       turns said in, or dated by facts into, [$start, $end)
// :param conversation_id => 'conv-26'
// :param embedding => [0.1, ...]
// :param k_turns => 40
// :param k_facts => 20
// :param sources => null
// :param ft_query => 'support group'
// :param k_fulltext => 10
// :param scan => 1000
// :param entity_ids => []
// :param k_entity => 10
// :param min_confidence => 0.5
// :param start => null
// :param end => null
// :param k_window => 10
CALL {
  MATCH (t:Turn {conversation_id: $conversation_id})
  WITH t, 2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine
  ORDER BY cosine DESC, t.index ASC
  LIMIT $k_turns
  RETURN 'dense_turns' AS generator, t, cosine, null AS fact_id, null AS fact_cosine,
         null AS event_time, null AS bm25, null AS via
  UNION ALL
  MATCH (f:Fact {conversation_id: $conversation_id})
  WHERE f.embedding IS NOT NULL AND ($sources IS NULL OR f.source IN $sources)
  WITH f, 2.0 * vector.similarity.cosine(f.embedding, $embedding) - 1.0 AS fact_cosine
  ORDER BY fact_cosine DESC, f.id ASC
  LIMIT $k_facts
  MATCH (f)-[:CITES]->(t:Turn)
  RETURN 'dense_facts' AS generator, t,
         2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine,
         f.id AS fact_id, fact_cosine, f.event_time AS event_time, null AS bm25, null AS via
  UNION ALL
  WITH 1 AS go
  WHERE $ft_query IS NOT NULL AND $k_fulltext > 0
  CALL db.index.fulltext.queryNodes('turn_text', $ft_query, {limit: $scan}) YIELD node, score
  WITH node AS t, score
  WHERE t.conversation_id = $conversation_id
  WITH t, score
  ORDER BY score DESC, t.index ASC
  LIMIT $k_fulltext
  RETURN 'fulltext' AS generator, t,
         2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine,
         null AS fact_id, null AS fact_cosine, null AS event_time, score AS bm25, null AS via
  UNION ALL
  WITH 1 AS go
  WHERE $ft_query IS NOT NULL AND $k_fulltext > 0
  CALL db.index.fulltext.queryNodes('fact_text', $ft_query, {limit: $scan}) YIELD node, score
  WITH node AS f, score
  WHERE f.conversation_id = $conversation_id AND ($sources IS NULL OR f.source IN $sources)
  WITH f, score
  ORDER BY score DESC, f.id ASC
  LIMIT $k_fulltext
  MATCH (f)-[:CITES]->(t:Turn)
  RETURN 'fulltext' AS generator, t,
         2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine,
         f.id AS fact_id, 2.0 * vector.similarity.cosine(f.embedding, $embedding) - 1.0 AS fact_cosine,
         f.event_time AS event_time, score AS bm25, null AS via
  UNION ALL
  MATCH (e:Entity {conversation_id: $conversation_id})
  WHERE e.id IN $entity_ids AND $k_entity > 0
  CALL {
    WITH e
    MATCH (e)<-[:MENTIONS]-(t:Turn)
    RETURN t
    UNION
    WITH e
    MATCH (e)<-[:ABOUT]-(f:Fact)-[:CITES]->(t:Turn)
    WHERE f.confidence >= $min_confidence
    RETURN t
  }
  WITH t, collect(DISTINCT e.id) AS via
  WITH t, via, 2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine
  ORDER BY cosine DESC, t.index ASC
  LIMIT $k_entity
  RETURN 'entity' AS generator, t, cosine, null AS fact_id, null AS fact_cosine,
         null AS event_time, null AS bm25, via
  UNION ALL
  WITH 1 AS go
  WHERE $start IS NOT NULL AND $k_window > 0
  CALL {
    MATCH (t:Turn {conversation_id: $conversation_id})
    WHERE t.observed_at >= $start AND t.observed_at < $end
    RETURN t
    UNION
    MATCH (f:Fact {conversation_id: $conversation_id})-[:CITES]->(t:Turn)
    WHERE f.event_time IS NOT NULL AND f.event_time < $end
      AND coalesce(f.event_end, f.event_time) > $start
    RETURN t
  }
  WITH t, 2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine
  ORDER BY cosine DESC, t.index ASC
  LIMIT $k_window
  RETURN 'window' AS generator, t, cosine, null AS fact_id, null AS fact_cosine,
         null AS event_time, null AS bm25, null AS via
}
RETURN generator, t.id AS turn_id, t.text AS text, t.speaker AS speaker, t.session AS session,
       t.index AS index, t.observed_at AS observed_at, cosine, fact_id, fact_cosine, event_time,
       bm25, via
