// One turn with the facts that cite it, their entities and events, and the entities it mentions.
// :param turn_id => 'conv-26:D1:3'
MATCH (t:Turn {id: $turn_id})
RETURN t,
       COLLECT { MATCH p = (:Fact)-[:CITES]->(t) RETURN p } AS citing_facts,
       COLLECT { MATCH (f:Fact)-[:CITES]->(t) MATCH p = (f)-[:ABOUT]->(:Entity) RETURN p } AS fact_entities,
       COLLECT { MATCH (f:Fact)-[:CITES]->(t) MATCH p = (f)-[:MEMBER_OF]->(:Event) RETURN p } AS fact_events,
       COLLECT { MATCH p = (t)-[:MENTIONS]->(:Entity) RETURN p } AS mentions
