// Set the supersession key of the given facts (maintenance: kgmem.store.schema.restore_key_case).
// :param rows => [{id: 'Chat-A:x:t0:0', key: 'Chat-A:e:person:ana|employer'}]
UNWIND $rows AS row
MATCH (f:Fact {id: row.id})
SET f.key = row.key
RETURN count(f) AS updated
