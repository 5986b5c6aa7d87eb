"""Truth decisions learned from data: the labelled corpus, its validation and splits.

The four decisions (relation of a new statement to a stored fact, memory request, answerability,
attribution) are documented with their classes in `corpus/truth/CARD.md`.
"""
