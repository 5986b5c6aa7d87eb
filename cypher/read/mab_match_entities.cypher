// Entities of a tenant whose id is one of $ids (ids are derived from normalised names, so this
// resolves the name candidates of a question through the Entity.id uniqueness index).
// :param conversation_id => 'factconsolidation_sh_6k'
// :param ids => ['factconsolidation_sh_6k:entity:twitter']
MATCH (e:Entity)
WHERE e.id IN $ids AND e.conversation_id = $conversation_id
RETURN e.id AS id, e.name AS name, e.kind AS kind
