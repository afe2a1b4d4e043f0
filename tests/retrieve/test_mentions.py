"""What a question names, and whether the documents mention it."""

import pytest

from reader.retrieve.mentions import question_names

HARBOUR = (
    "Harbour records of Rotterdam\n\nThe harbour froze in the winter of 1709. Hartmanis, the "
    "harbour master, kept a ledger of every European ship.\n\nQwen2-72B is a model name."
)
ORCHARD = "Orchard notes\n\nThe orchard near Utrecht was planted in 1712."


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("Who won the 1998 football World Cup?", ["World", "Cup"]),
        # A sentence's first word is no name, but the word after "Mr." is.
        ("What is Mr. Bennet's first name?", ["Bennet"]),
        ("Which header does HTTP/1.1 define? Is it the cookie?", ["HTTP/1.1"]),
        ("When Jefferson's home burned, which of his books survived?", ["Jefferson"]),
        ("Which tool builds the C++ API's bindings for Python?", ["C++", "API", "Python"]),
        # "WHO" is the organisation's name, but a stop word; "I" names nobody.
        ("Which vaccine does WHO recommend, and how do I get it?", []),
        # In Title Case capitals say nothing.
        ("What Is The Capital Of Australia?", []),
        ("what is the capital of australia?", []),
        ("谁是公司负责人？", []),
        # German writes every noun with a capital: none is a name by its capital.
        ("Wie hoch ist die Miete für die Wohnung in Berlin?", []),
        ("Wer hat den Vertrag unterschrieben?", []),
        # One word English shares with German ("was", "die") does not make it German.
        ("Where was Goethe born, and when did he die?", ["Goethe"]),
    ],
)
def test_the_names_of_a_question(question, names):
    assert question_names(question) == names


def test_names_no_chunk_holds_are_unmentioned(library, make_file):
    harbour = library.ingest(make_file("harbour.txt", HARBOUR.encode())).doc_id
    orchard = library.ingest(make_file("orchard.txt", ORCHARD.encode())).doc_id
    asked = ["Rotterdam", "Utrecht", "Jupiter", "Qwen2-72B"]
    assert library.unmentioned(asked) == ["Jupiter"]
    # Asked of one document, a name only another one holds is not mentioned.
    assert library.unmentioned(asked, [harbour]) == ["Utrecht", "Jupiter"]
    assert library.unmentioned(asked, [harbour, orchard]) == ["Jupiter"]


def test_a_name_in_another_form_or_misspelled_by_a_letter_is_mentioned(library, make_file):
    doc_id = library.ingest(make_file("harbour.txt", HARBOUR.encode())).doc_id
    # "Europe" begins "European"; "Hatmanis" is a letter away from "Hartmanis".
    assert library.unmentioned(["Europe", "Hatmanis", "Hrtmns", "Cup"], [doc_id]) == [
        "Hrtmns",
        "Cup",
    ]
