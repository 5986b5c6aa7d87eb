"""Writing: records turned into parameter rows and idempotent writes (`writer`), the units one
write holds, appends under the conversation lock, records read back, and one owner's threads."""
