"""The error tree drawn in kgmem.errors names every error class kgmem defines, under its
parent."""

import inspect
import re

import kgmem.bench.latency
import kgmem.errors
from kgmem.errors import KgmemError

TREE = kgmem.errors.__doc__ or ""


def _drawn() -> dict[str, int]:
    """Each drawn class name and its depth in the tree."""
    out = {}
    drawing = TREE.split("```")[1]
    for line in drawing.splitlines():
        m = re.match(r"^([│ ├└─]*)(\w+)\s", line + " ")
        if m and m.group(2)[0].isupper():
            out[m.group(2)] = len(m.group(1)) // 4
    return out


def _defined() -> list[type]:
    classes = []
    for module in (kgmem.errors, kgmem.bench.latency):
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, KgmemError) and cls.__module__ == module.__name__:
                classes.append(cls)
    return classes


def test_every_error_is_drawn_under_its_parent():
    drawn = _drawn()
    for cls in _defined():
        assert cls.__name__ in drawn, f"{cls.__name__} is missing from the tree in kgmem.errors"
        if cls is not KgmemError:
            parent = next(b for b in cls.__mro__[1:] if issubclass(b, KgmemError))
            assert drawn[cls.__name__] == drawn[parent.__name__] + 1, cls.__name__


def test_every_drawn_error_exists():
    names = {cls.__name__ for cls in _defined()}
    assert set(_drawn()) <= names
