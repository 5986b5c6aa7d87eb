// The evidence subgraph of some turns (e.g. a question's hits, see `kgmem explain --cypher`):
// the turns, their NEXT neighbours, the facts citing them, those facts' entities, events and
// SUPERSEDES links, and the entities the turns mention.
// :param turn_ids => ['conv-26:D1:3', 'conv-26:D2:8']
MATCH (t:Turn)
WHERE t.id IN $turn_ids
RETURN t,
       COLLECT { MATCH p = (t)-[:NEXT]-(:Turn) RETURN p } AS timeline,
       COLLECT { MATCH p = (:Fact)-[:CITES]->(t) RETURN p } AS citing_facts,
       COLLECT { MATCH (f:Fact)-[:CITES]->(t) MATCH p = (f)-[:ABOUT]->(:Entity) RETURN p } AS fact_entities,
       COLLECT { MATCH (f:Fact)-[:CITES]->(t) MATCH p = (f)-[:MEMBER_OF]->(:Event) RETURN p } AS fact_events,
       COLLECT { MATCH (f:Fact)-[:CITES]->(t) MATCH p = (f)-[:SUPERSEDES]-(:Fact) RETURN p } AS supersession,
       COLLECT { MATCH p = (t)-[:MENTIONS]->(:Entity) RETURN p } AS mentions
