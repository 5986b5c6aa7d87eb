// Canonical entities of a conversation (with the owner's shared entities when it has an owner,
// kgmem.ingest.writing.threads) whose name or an alias equals $name ignoring case and accents ("jose"
// and "JOSÉ" find José: lower-cased, NFKD-decomposed, combining diacritical marks U+0300-U+036F
// dropped, trimmed; kgmem.steer.fold_name does the same for speakers). An entity whose name
// equals $name ignoring case only comes first.
// :param conversation_id => 'conv-26'
// :param name => 'Mel'
WITH reduce(acc = '', ch IN split(normalize(toLower(trim($name)), NFKD), '') |
       CASE WHEN ch >= '\u0300' AND ch <= '\u036f' THEN acc ELSE acc + ch END) AS wanted
OPTIONAL MATCH (c:Conversation {id: $conversation_id})
CALL (c) {
  MATCH (e:Entity {conversation_id: $conversation_id}) RETURN e
  UNION
  MATCH (e:Entity {owner: c.owner}) RETURN e
}
WITH e, wanted
WHERE any(label IN [e.name] + coalesce(e.aliases, [])
          WHERE reduce(acc = '', ch IN split(normalize(toLower(trim(label)), NFKD), '') |
                  CASE WHEN ch >= '\u0300' AND ch <= '\u036f' THEN acc ELSE acc + ch END) = wanted)
RETURN e.id AS id, e.name AS name, e.type AS type, e.aliases AS aliases
ORDER BY (toLower(e.name) = toLower($name)) DESC, e.id
