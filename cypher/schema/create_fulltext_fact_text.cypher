// BM25 seeds over fact text (analyzer $analyzer, as turn_text), scoped to one tenant inside Lucene (see create_fulltext_turn_text).
// :param analyzer => 'english'
CREATE FULLTEXT INDEX fact_text IF NOT EXISTS FOR (f:Fact) ON EACH [f.text, f.tk]
OPTIONS {indexConfig: {`fulltext.analyzer`: $analyzer}}
