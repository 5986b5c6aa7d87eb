// Stored keyed facts of a conversation with their embeddings and the first turn each cites
// (its text and embedding): the candidates the relation decision compares a new unkeyed fact
// with (kgmem.ingest.extraction.relation_keys).
// :param conversation_id => 'conv-26'
MATCH (f:Fact {conversation_id: $conversation_id})
WHERE f.key IS NOT NULL
OPTIONAL MATCH (f)-[:CITES]->(t:Turn)
WITH f, t ORDER BY t.index
WITH f, head(collect(t)) AS t
RETURN f.id AS id, f.key AS key, f.serial AS serial, f.embedding AS embedding,
       t.id AS turn_id, t.text AS turn_text, t.embedding AS turn_embedding
