CREATE FULLTEXT INDEX fact_text IF NOT EXISTS FOR (f:Fact) ON EACH [f.text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
