// BM25 seeds over turn text (Lucene english analyzer: stemming + stop words).
CREATE FULLTEXT INDEX turn_text IF NOT EXISTS FOR (t:Turn) ON EACH [t.text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
