// The attribute values of the facts current-value resolution chose (kgmem.retrieve.answer):
// each fact's subject, holder, attribute, value and its type, validity, and the turns it cites
// (earliest first), and its modality (``negated``: a retraction). Facts of other conversations are invisible.
// :param conversation_id => 'conv-26'
// :param fact_ids => ['conv-26:x:D1:3:0']
UNWIND $fact_ids AS fact_id
MATCH (f:Fact {id: fact_id, conversation_id: $conversation_id})
OPTIONAL MATCH (f)-[:CITES]->(t:Turn)
WITH f, t ORDER BY t.index
WITH f, collect(t.id) AS cites
RETURN f.id AS fact_id, f.subject AS subject, f.holder AS holder, f.attribute AS attribute,
       f.value AS value, f.value_type AS value_type, f.object AS object, f.text AS text,
       toString(f.valid_from) AS valid_from, toString(f.valid_to) AS valid_to, cites,
       f.modality AS modality
