// Whole-store totals for `kgmem bench scale`: nodes, relationships, and the main labels (all
// from Neo4j's count store, so constant time whatever the store holds).
CALL () { MATCH (n) RETURN count(n) AS nodes }
CALL () { MATCH ()-[r]->() RETURN count(r) AS relationships }
CALL () { MATCH (t:Turn) RETURN count(t) AS turns }
CALL () { MATCH (f:Fact) RETURN count(f) AS facts }
CALL () { MATCH (e:Entity) RETURN count(e) AS entities }
CALL () { MATCH (c:Conversation) RETURN count(c) AS conversations }
RETURN nodes, relationships, turns, facts, entities, conversations
