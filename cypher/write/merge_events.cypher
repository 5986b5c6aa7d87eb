// Events grouping the facts that describe one happening: (:Fact)-[:MEMBER_OF]->(:Event).
// $rows: [{id, conversation_id, name, time, time_end, granularity, fact_ids}]
// The MERGE key includes conversation_id (the unique constraint is on id alone): an id that
// another conversation already holds fails the batch with a constraint error instead of
// silently moving that tenant's node into this conversation.
UNWIND $rows AS row
MERGE (ev:Event {id: row.id, conversation_id: row.conversation_id})
SET ev.name = row.name,
    ev.time = row.time,
    ev.time_end = row.time_end,
    ev.granularity = row.granularity
WITH ev, row
UNWIND row.fact_ids AS fact_id
MATCH (f:Fact {id: fact_id, conversation_id: row.conversation_id})
MERGE (f)-[:MEMBER_OF]->(ev)
