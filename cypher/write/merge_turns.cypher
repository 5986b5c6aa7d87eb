// Turns (immutable raw utterances) with their embeddings, linked to their Session; `tk` is the
// tenant token of the fulltext index (kgmem.store.tenant). Bumps the Conversation's version.
// `role` is the speaker's role (user/assistant/system/tool, null for a named speaker);
// `request` is true on a memory-request turn (kgmem.ingest.requests.rules), null otherwise.
// `owner` is the Conversation's owner ('' for none: the vector index filters on it, and a null
// would match no equality), and `tk` gets the owner's fulltext token beside the tenant token,
// so one owner's conversations are one Lucene filter (kgmem.store.tenant.owner_token). The
// owner is set on the Conversation before its first turn (write/claim_owner).
// `source` (a document chunk's '<document>#<heading trail>', null for chat) and `source_kind`
// ('chat', 'document' or 'facts') are what the search filter `sources` matches; `document` is
// a document chunk's document key (kgmem.ingest.loaders.documents), null otherwise. `language` is the
// ISO 639-1 code of the turn's prose (kgmem.ingest.extraction.language), null when too short to tell.
// `passages` are the turn's passages when it is longer than the embedder's window
// (kgmem.ingest.extraction.passages; empty for a turn that is one passage): the turn's earlier passages
// are deleted and these written, each (:Passage {id, conversation_id, n, start, end,
// embedding})-[:OF]->(t), so a rewritten turn never keeps a stale passage.
// `meta` holds the caller's metadata (kgmem.metadata), one `meta_<key>` property per key, from
// the parameter map (a key never becomes Cypher text here); {} adds nothing, so a turn written
// again (facts derived anew) keeps its metadata.
// $rows: [{id, conversation_id, tk, session, session_id, index, dia_id, speaker, text, observed_at, role, request, source, source_kind, document, language, meta, embedding, passages: [{id, n, start, end, embedding}]}]
// The MERGE key includes conversation_id (the unique constraint is on id alone): an id that
// another conversation already holds fails the batch with a constraint error instead of
// silently moving that tenant's node into this conversation.
UNWIND $rows AS row
OPTIONAL MATCH (owned:Conversation {id: row.conversation_id})
MERGE (t:Turn {id: row.id, conversation_id: row.conversation_id})
SET t.tk = row.tk + coalesce(' ' + owned.owner_tk, ''),
    t.owner = coalesce(owned.owner, ''),
    t.source = row.source,
    t.source_kind = row.source_kind,
    t.session = row.session,
    t.index = row.index,
    t.dia_id = row.dia_id,
    t.speaker = row.speaker,
    t.text = row.text,
    t.observed_at = row.observed_at,
    t.role = row.role,
    t.request = row.request,
    t.document = row.document,
    t.language = row.language,
    t += row.meta
WITH t, row
CALL db.create.setNodeVectorProperty(t, 'embedding', row.embedding)
WITH t, row
CALL (t) {
  MATCH (old:Passage)-[:OF]->(t)
  DETACH DELETE old
}
CALL (t, row) {
  UNWIND coalesce(row.passages, []) AS part
  CREATE (p:Passage {id: part.id, conversation_id: row.conversation_id, n: part.n,
                     start: part.start, end: part.end})
  CREATE (p)-[:OF]->(t)
  WITH p, part
  CALL db.create.setNodeVectorProperty(p, 'embedding', part.embedding)
}
WITH t, row
MATCH (s:Session {id: row.session_id, conversation_id: row.conversation_id})
MERGE (t)-[:IN_SESSION]->(s)
// the planner's cache of this conversation (speakers, entities, latest time) is now stale
WITH DISTINCT row.conversation_id AS conversation_id
MERGE (c:Conversation {id: conversation_id})
SET c.version = randomUUID()
