// Dense seeds over turns, filtered INSIDE the index by owner and conversation (the scope) and by
// the search filters (speaker, session, observed time, source kind):
// query with MATCH (t:Turn) SEARCH t IN (VECTOR INDEX turn_embedding FOR $q
//   WHERE t.owner = $o AND t.conversation_id IN $c AND ... LIMIT $k) SCORE AS s
// (Cypher 25; the filter forms Neo4j 2026.08 accepts are in docs/design.md section 6).
// No quantization (the 2026 default is binary) and 3x search expansion: recall@40 against an
// exact scan stays >= 0.99 with many similar tenants (kgmem bench scale measures it).
// /*metadata*/ is where kgmem.store.schema puts the declared metadata keys' properties
// (`, t.meta_project, ...`: Settings.metadata_filter_keys, checked by kgmem.metadata.KEY_PATTERN);
// pasted as is, the comment adds none.
// $dimensions = the embedder's output size (384 for all-MiniLM-L6-v2).
CYPHER 25
CREATE VECTOR INDEX turn_embedding IF NOT EXISTS FOR (t:Turn) ON t.embedding
WITH [t.conversation_id, t.owner, t.observed_at, t.speaker, t.session, t.source_kind/*metadata*/]
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine',
                       `vector.quantization.type`: 'NONE',
                       `vector.default_search_expansion_factor`: 3.0}}
