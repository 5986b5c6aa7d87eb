// The evidence subgraph of some turns as an edge list (for kgmem.audit → networkx): NEXT
// neighbours, citing facts, their entities/events/SUPERSEDES links, and mentioned entities.
// Each row is one edge; nodes are maps without embeddings. Same content as
// browser/evidence_subgraph, shaped for code.
// :param conversation_id => 'conv-26'
// :param turn_ids => ['conv-26:D1:3', 'conv-26:D2:8']
MATCH (t:Turn {conversation_id: $conversation_id})
WHERE t.id IN $turn_ids
CALL (t) {
  MATCH (t)-[r:NEXT]-(:Turn)
  RETURN startNode(r) AS a, 'NEXT' AS rel, endNode(r) AS b
  UNION ALL
  MATCH (f:Fact)-[:CITES]->(t)
  RETURN f AS a, 'CITES' AS rel, t AS b
  UNION ALL
  MATCH (f:Fact)-[:CITES]->(t)
  MATCH (f)-[:ABOUT]->(e:Entity)
  RETURN f AS a, 'ABOUT' AS rel, e AS b
  UNION ALL
  MATCH (f:Fact)-[:CITES]->(t)
  MATCH (f)-[:MEMBER_OF]->(ev:Event)
  RETURN f AS a, 'MEMBER_OF' AS rel, ev AS b
  UNION ALL
  MATCH (f:Fact)-[:CITES]->(t)
  MATCH (f)-[r:SUPERSEDES]-(:Fact)
  RETURN startNode(r) AS a, 'SUPERSEDES' AS rel, endNode(r) AS b
  UNION ALL
  MATCH (t)-[:MENTIONS]->(e:Entity)
  RETURN t AS a, 'MENTIONS' AS rel, e AS b
}
WITH DISTINCT a, rel, b
RETURN a {.id, .text, .name, .speaker, .session, .dia_id, .type, .relation, .source,
          .observed_at, .event_time, .time, .serial, label: head(labels(a))} AS source,
       rel,
       b {.id, .text, .name, .speaker, .session, .dia_id, .type, .relation, .source,
          .observed_at, .event_time, .time, .serial, label: head(labels(b))} AS target
ORDER BY source.id, rel, target.id
