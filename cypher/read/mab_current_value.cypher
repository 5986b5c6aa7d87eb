// The current value of one supersession key: the fact with the highest serial.
// :param conversation_id => 'factconsolidation_sh_6k'
// :param key => 'factconsolidation_sh_6k:entity:twitter|ceo'
MATCH (f:Fact {conversation_id: $conversation_id, key: $key})
RETURN f.id AS fact_id, f.serial AS serial, f.object AS object, f.text AS text
ORDER BY f.serial DESC
LIMIT 1
