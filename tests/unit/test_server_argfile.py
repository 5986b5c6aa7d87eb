"""The argument file that carries the initial password to neo4j-admin (picocli) intact."""

from kgmem.store.server import password_argfile


def test_argfile_marks_the_end_of_options_and_escapes() -> None:
    assert password_argfile("-x") == '--\n"-x"\n'
    assert password_argfile("@x") == '--\n"@@x"\n'
    assert password_argfile('a"b\\c') == '--\n"a\\"b\\\\c"\n'
    assert password_argfile("tab\there") == '--\n"tab\\011here"\n'
    assert password_argfile("é") == '--\n"é"\n'
