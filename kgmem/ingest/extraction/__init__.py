"""Extraction: what the write path reads out of turns (no writes of its own but the standing
instructions): the spaCy clause grammar, typed entities, values and attributes, dates, events,
language, passages, and the supersession keys that say which fact replaces which."""
