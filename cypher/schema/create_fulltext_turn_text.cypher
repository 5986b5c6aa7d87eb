// BM25 seeds over turn text (Lucene english analyzer: stemming + stop words), scoped to one
// tenant INSIDE Lucene: `tk` is the tenant token (kgmem.store.tenant.tenant_token: one number
// the analyzer cannot split), queried as '+tk:<token>^0 +text:(words ...)' (boost 0: a filter, no score).
CREATE FULLTEXT INDEX turn_text IF NOT EXISTS FOR (t:Turn) ON EACH [t.text, t.tk]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
