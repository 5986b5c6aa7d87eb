// Link each supersession key's facts in serial order: (newer)-[:SUPERSEDES]->(older), and stamp
// the older fact with valid_to_serial = the newer serial (there is no clock). Nothing deleted.
// Idempotent; covers the whole tenant. Returns the number of links.
// :param conversation_id => 'factconsolidation_sh_6k'
MATCH (f:Fact {conversation_id: $conversation_id})
WHERE f.key IS NOT NULL
WITH f.key AS key, f ORDER BY f.serial
WITH key, collect(f) AS versions
WHERE size(versions) > 1
UNWIND range(1, size(versions) - 1) AS i
WITH versions[i] AS newer, versions[i - 1] AS older
MERGE (newer)-[:SUPERSEDES]->(older)
SET older.valid_to_serial = newer.serial
RETURN count(*) AS links
