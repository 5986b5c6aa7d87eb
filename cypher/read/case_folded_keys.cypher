// Facts whose supersession key may hold a case-folded scope: the fact's conversation id or
// owner has upper-case letters (keys written before ids were kept exact folded the whole
// holder). kgmem.store.schema.restore_key_case decides which keys change.
// :param skip => 0
// :param limit => 10000
MATCH (f:Fact)
WHERE f.key IS NOT NULL
  AND (f.conversation_id <> toLower(f.conversation_id)
       OR coalesce(f.owner, '') <> toLower(coalesce(f.owner, '')))
RETURN f.id AS id, f.key AS key, f.subject AS subject, f.holder AS holder,
       f.conversation_id AS conversation_id, f.owner AS owner
ORDER BY id
SKIP $skip
LIMIT $limit
