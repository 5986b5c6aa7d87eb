// How well the best fact ABOUT the persons a question names matches it, against the best fact
// about anyone else: max cos(fact, q) over asserted/negated facts whose subject is one of
// $entity_ids ("mine") and over the other facts with a subject entity ("other"), with the
// texts of the best ones. Facts observed after $as_of (if given) are invisible.
// Cosines are raw, in [-1, 1].
// :param conversation_id => 'conv-26'
// :param entity_ids => ['conv-26:e:person:caroline']
// :param embedding => [0.1, ...]
// :param as_of => null
MATCH (f:Fact {conversation_id: $conversation_id})
WHERE f.embedding IS NOT NULL
  AND coalesce(f.modality, 'asserted') IN ['asserted', 'negated']
  AND ($as_of IS NULL OR f.valid_from IS NULL OR f.valid_from <= $as_of)
WITH f, (f.subject IN $entity_ids OR EXISTS {
          MATCH (f)-[:ABOUT {role: 'subject'}]->(e:Entity) WHERE e.id IN $entity_ids }) AS mine,
     2.0 * vector.similarity.cosine(f.embedding, $embedding) - 1.0 AS cosine
ORDER BY cosine DESC
WITH mine, collect({cosine: cosine, text: f.text})[0] AS best
RETURN mine, best.cosine AS cosine, best.text AS text
