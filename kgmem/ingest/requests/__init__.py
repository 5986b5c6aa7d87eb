"""Memory requests: the grammar of "forget …" / "don't keep …" turns
(`kgmem.ingest.requests.grammar`) and the rules that plan what each request removes
(`kgmem.ingest.requests.rules`); pure, no store. The write-path stages that act on them are
`kgmem.ingest.stages.requests` and `kgmem.ingest.stages.forgetting`."""
