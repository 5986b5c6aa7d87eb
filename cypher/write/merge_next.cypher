// The timeline: (:Turn)-[:NEXT]->(:Turn) in utterance order. $rows: [{prev, next}]
// Only forward links within one conversation: re-appending a stored turn (Memory.add_turns
// with an id it already holds) must not add a self-loop or a backward edge, which would break
// the one-chain invariant every reader of NEXT assumes.
UNWIND $rows AS row
MATCH (a:Turn {id: row.prev}), (b:Turn {id: row.next})
WHERE a.conversation_id = b.conversation_id AND a.index < b.index
MERGE (a)-[:NEXT]->(b)
