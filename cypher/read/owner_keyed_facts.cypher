// The facts with a supersession key of every conversation of one owner: what the owner's
// supersession links are computed from (kgmem.ingest.writing.threads.owner_links).
// :param owner => 'alice'
MATCH (f:Fact {owner: $owner})
WHERE f.key IS NOT NULL
RETURN f.id AS id, f.conversation_id AS conversation_id, f.subject AS subject,
       f.relation AS relation, f.object AS object, f.text AS text, f.source AS source,
       f.key AS key, f.serial AS serial, f.valid_from AS valid_from, f.modality AS modality,
       f.multiplicity AS multiplicity
ORDER BY f.conversation_id, f.serial, f.id
