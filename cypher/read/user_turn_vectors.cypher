// The user turns of a conversation with their embeddings and the embedding of the turn before
// each, in utterance order, for deriving standing instructions and conflicts
// (kgmem.ingest.extraction.standing). Turns of other roles and of named speakers without a role are not read.
// :param conversation_id => 'beam-100K-1'
MATCH (t:Turn {conversation_id: $conversation_id})
WHERE t.role = 'user' AND t.embedding IS NOT NULL
OPTIONAL MATCH (p:Turn)-[:NEXT]->(t)
RETURN t.id AS id, t.text AS text, t.observed_at AS observed_at, t.speaker AS speaker,
       t.role AS role, coalesce(t.request, false) AS request, t.embedding AS embedding,
       p.embedding AS previous
ORDER BY t.index
