// Every conversation id that holds turns (for maintenance such as `schema apply --rebuild`).
MATCH (t:Turn)
RETURN DISTINCT t.conversation_id AS conversation_id
ORDER BY conversation_id
