// Every conversation in the store with its turn count and time span.
MATCH (t:Turn)
RETURN t.conversation_id AS conversation_id, count(t) AS turns,
       min(t.observed_at) AS first_seen, max(t.observed_at) AS last_seen
ORDER BY conversation_id
