// Facts on a supersession key whose subject is one of $entity_ids (or whose subject string is
// one of them), with the turns they cite: the input of deterministic current/past resolution.
// Facts observed after $as_of (if given) are invisible: "current" is current at that moment.
// :param conversation_id => 'conv-26'
// :param entity_ids => ['conv-26:e:person:caroline']
// :param as_of => null
MATCH (f:Fact {conversation_id: $conversation_id})
WHERE f.key IS NOT NULL
  AND ($as_of IS NULL OR f.valid_from IS NULL OR f.valid_from <= $as_of)
  AND (f.subject IN $entity_ids OR EXISTS {
        MATCH (f)-[:ABOUT {role: 'subject'}]->(e:Entity) WHERE e.id IN $entity_ids })
OPTIONAL MATCH (f)-[:CITES]->(t:Turn)
RETURN f.id AS fact_id, f.key AS key, f.serial AS serial, f.valid_from AS valid_from,
       f.text AS text, f.object AS object, coalesce(f.modality, 'asserted') AS modality,
       collect(t.id) AS cites
ORDER BY f.key, f.serial
