// Turns that share a fact with any of the given turns (both cited by one Fact), for the
// SUPPORTED grade.
// :param turn_ids => ['conv-26:D1:3']
UNWIND $turn_ids AS turn_id
MATCH (:Turn {id: turn_id})<-[:CITES]-(:Fact)-[:CITES]->(other:Turn)
RETURN DISTINCT other.id AS turn_id
