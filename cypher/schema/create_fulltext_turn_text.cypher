// BM25 seeds over turn text (Lucene's $analyzer, 'english' by default: stemming + stop words;
// Settings.fulltext_analyzer, docs/languages.md), scoped to one
// tenant INSIDE Lucene: `tk` is the tenant token (kgmem.store.tenant.tenant_token: one number
// the analyzer cannot split), queried as '+tk:<token>^0 +text:(words ...)' (boost 0: a filter, no score).
// :param analyzer => 'english'
CREATE FULLTEXT INDEX turn_text IF NOT EXISTS FOR (t:Turn) ON EACH [t.text, t.tk]
OPTIONS {indexConfig: {`fulltext.analyzer`: $analyzer}}
