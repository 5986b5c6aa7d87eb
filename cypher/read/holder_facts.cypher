// Who holds what the question asks (kgmem.retrieve.answerable.holder_gap): the $k facts of any
// modality (a plan is its planner's too) of the conversation(s) closest to the question
// embedding (the fact vector index, filtered by owner and conversation inside it), each with the person entity it is
// about (null if none), the speaker of the turn it cites (the first by name, null if none)
// and its cosine in [-1, 1]. Facts valid only after $as_of (if given) are
// invisible, as in read/person_support.
// $conversation_ids: one conversation, or all of an owner's (an owner search).
// :param conversation_ids => ['conv-26']
// :param owner => ''
// :param embedding => [0.1, 0.2]
// :param k => 50
// :param as_of => null
CYPHER 25
MATCH (f:Fact)
  SEARCH f IN (VECTOR INDEX fact_embedding FOR $embedding
               WHERE f.owner = $owner AND f.conversation_id IN $conversation_ids
               LIMIT 2 * $k) SCORE AS s
WITH f, s
WHERE $as_of IS NULL OR f.valid_from IS NULL OR f.valid_from <= $as_of
WITH f, s ORDER BY s DESC, f.id ASC LIMIT $k
OPTIONAL MATCH (e:Entity {id: f.subject, type: 'person'})
OPTIONAL MATCH (f)-[:ABOUT {role: 'subject'}]->(p:Entity {type: 'person'})
WITH f, s, e, collect(p.id) AS about
OPTIONAL MATCH (f)-[:CITES]->(t:Turn)
WITH f, s, coalesce(e.id, head(about)) AS subject, min(t.speaker) AS speaker
RETURN f.id AS fact_id, f.conversation_id AS conversation_id, subject, speaker,
       2.0 * s - 1.0 AS cosine
ORDER BY cosine DESC, fact_id ASC
