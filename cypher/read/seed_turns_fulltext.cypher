// BM25 seeds over turn text (Lucene english analyzer), scoped to ONE conversation. The fulltext
// index is global, so it is scanned to $scan entries and then filtered by tenant: a seed
// generator, not the exact cosine search. $query is Lucene syntax, escaped by the caller.
// :param conversation_id => 'conv-26'
// :param query => 'support group'
// :param embedding => [0.1, ...]
// :param k => 10
// :param scan => 500
CALL db.index.fulltext.queryNodes('turn_text', $query, {limit: $scan}) YIELD node, score
WITH node AS t, score
WHERE t.conversation_id = $conversation_id
WITH t, score
ORDER BY score DESC, t.index ASC
LIMIT $k
RETURN t.id AS turn_id, t.text AS text, t.speaker AS speaker, t.session AS session,
       t.index AS index, t.observed_at AS observed_at, score AS bm25,
       2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine
