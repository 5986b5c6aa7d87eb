// Block until every index is ONLINE (after schema creation), at most 300 s.
CALL db.awaitIndexes(300)
