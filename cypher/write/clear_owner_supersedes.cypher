// Remove the supersession links among one owner's facts and their valid_to, before the owner's
// links are written again over all its threads (kgmem.ingest.writing.threads.owner_links). Never
// deletes a fact.
// :param owner => 'alice'
MATCH (f:Fact {owner: $owner})
OPTIONAL MATCH (f)-[s:SUPERSEDES]->()
DELETE s
REMOVE f.valid_to
RETURN count(DISTINCT f) AS facts
