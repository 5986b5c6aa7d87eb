// The source ('<document>#<heading trail>') of the given turns that have one (document chunks,
// kgmem.ingest.loaders.documents); a search attaches it to its hits. One unique-id lookup per turn.
// :param turn_ids => ['doc-handbook.md:doc-1a2b3c4d-0123456789abcdef']
UNWIND $turn_ids AS turn_id
MATCH (t:Turn {id: turn_id})
WHERE t.source IS NOT NULL
RETURN t.id AS id, t.source AS source
