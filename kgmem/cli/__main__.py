"""``python -m kgmem.cli``: the same as the ``kgmem`` command."""

from kgmem.cli import main

main()
