// Every attribute value (kgmem.ingest.extraction.attributes) held by the given entities: asserted or
// negated facts with a listed attribute whose holder (else subject) is one of $entity_ids,
// current ones only (no valid_to) unless $history, with the turns they cite; by attribute,
// then by the conversations' order in $conversation_ids (one, or all of an owner's), then
// arrival order (Memory.profile).
// :param conversation_ids => ['conv-26']
// :param entity_ids => ['conv-26:e:person:caroline']
// :param history => false
MATCH (f:Fact)
WHERE f.conversation_id IN $conversation_ids
  AND f.multiplicity IS NOT NULL
  AND coalesce(f.holder, f.subject) IN $entity_ids
  AND coalesce(f.modality, 'asserted') IN ['asserted', 'negated']
  AND ($history OR f.valid_to IS NULL)
OPTIONAL MATCH (f)-[:CITES]->(t:Turn)
WITH f, t ORDER BY t.index
WITH f, collect(t.id) AS cites
RETURN f.attribute AS attribute, f.value AS value, f.value_type AS value_type,
       f.thing AS thing, f.multiplicity AS multiplicity, f.modality AS modality,
       toString(f.valid_from) AS valid_from, toString(f.valid_to) AS valid_to,
       f.valid_to IS NULL AS current, f.id AS fact_id, f.text AS text, f.key AS key, cites,
       f.conversation_id AS conversation_id
ORDER BY attribute, [i IN range(0, size($conversation_ids) - 1)
                     WHERE $conversation_ids[i] = f.conversation_id][0], f.serial, f.id
