// Stored facts of a conversation (id, text, key, modality, serial, valid_from) for incremental
// ingest.
// :param conversation_id => 'conv-26'
MATCH (f:Fact {conversation_id: $conversation_id})
RETURN f.id AS id, f.text AS text, f.key AS key, f.serial AS serial, f.valid_from AS valid_from,
       f.source AS source, f.modality AS modality
