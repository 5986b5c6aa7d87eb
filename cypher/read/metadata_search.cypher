// The turns nearest the question among those whose metadata passes a filter on declared keys,
// filtered INSIDE the turn vector index (its WITH [...] holds their `meta_<key>` properties,
// kgmem schema apply with Settings.metadata_filter_keys). /*where*/ is where kgmem.metadata_search
// puts the filter's predicates (` AND t.meta_project = $w0 ...`: property names from keys checked
// by kgmem.metadata.KEY_PATTERN, every value a parameter); pasted as is, the comment adds none.
// The search's other filters (speaker, session, time, source kind) are applied by the caller on
// the rows. Cosines are raw, in [-1, 1]. A memory-request turn is never an answer.
// :param embedding => [0.1, ...]
// :param conversation_ids => ['conv-26']
// :param owner => null
// :param limit => 50
CYPHER 25
MATCH (t:Turn)
  SEARCH t IN (VECTOR INDEX turn_embedding FOR $embedding
               WHERE t.conversation_id IN $conversation_ids /*where*/
               LIMIT $limit) SCORE AS s
WITH t, s
WHERE t.request IS NULL AND ($owner IS NULL OR t.owner = $owner)
RETURN t.id AS turn_id, t.conversation_id AS conversation_id, t.text AS text,
       t.speaker AS speaker, t.session AS session, t.observed_at AS observed_at,
       t.source AS source, t.source_kind AS source_kind, 2.0 * s - 1.0 AS cosine,
       [k IN keys(t) WHERE k STARTS WITH 'meta_' | [k, t[k]]] AS pairs
ORDER BY cosine DESC, turn_id ASC
