// The stored chunks of one document in a conversation (kgmem.ingest.loaders.documents): full turn ids,
// which embed each chunk's content hash, so a re-ingest compares them without reading text.
// :param conversation_id => 'doc-handbook.md'
// :param document => '/home/ana/handbook.md'
MATCH (t:Turn {conversation_id: $conversation_id})
WHERE t.document = $document
RETURN t.id AS id
ORDER BY t.index
