// Every string (and list-of-strings) property value of every node of one conversation and of
// every relationship touching one, with where it sits: what `kgmem bench cases` scans for a
// case's `forgotten` texts. Embeddings (float lists) and other non-string values are skipped.
// :param conversation_id => 'agent-05-forget-secret'
CALL {
  MATCH (n)
  WHERE n.conversation_id = $conversation_id OR (n:Conversation AND n.id = $conversation_id)
  RETURN n AS item, elementId(n) AS element, labels(n)[0] AS kind
  UNION
  MATCH (a)-[r]-()
  WHERE a.conversation_id = $conversation_id OR (a:Conversation AND a.id = $conversation_id)
  RETURN r AS item, elementId(r) AS element, type(r) AS kind
}
WITH DISTINCT item, element, kind
UNWIND keys(item) AS key
WITH element, kind, key, item[key] AS value
WHERE value IS :: STRING OR value IS :: LIST<STRING NOT NULL>
RETURN element, kind, key,
       CASE WHEN value IS :: STRING THEN [value] ELSE value END AS strings
