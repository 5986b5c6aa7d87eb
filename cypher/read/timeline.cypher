// What memory holds, as an agent's map: per conversation, one row per session of its chat and
// fact-list turns and one row per document (the file part of the turns' source, before '#'),
// with first and last observed times and the number of turns; oldest first.
// :param conversation_ids => ['conv-26']
MATCH (t:Turn)
WHERE t.conversation_id IN $conversation_ids AND t.request IS NULL
WITH t, coalesce(t.source_kind, 'chat') = 'document' AS is_document
WITH t.conversation_id AS conversation_id,
     CASE WHEN is_document THEN 'document' ELSE 'session' END AS kind,
     CASE WHEN is_document THEN null ELSE t.session END AS session,
     CASE WHEN is_document THEN split(coalesce(t.source, ''), '#')[0] ELSE null END AS source,
     min(t.observed_at) AS first, max(t.observed_at) AS last, count(t) AS turns
RETURN conversation_id, kind, session, source, first, last, turns
ORDER BY first, conversation_id, kind, session, source
