"""Evidence never says the same sentence twice."""

from __future__ import annotations

from collections import Counter

import pytest

from reader.answer import Answerer
from reader.records import Chunk
from reader.retrieve.evidence import choose_evidence
from reader.retrieve.question import Question
from reader.text.normalize import normalize_key
from reader.text.reading_view import readable
from reader.text.sentences import sentence_spans

FILLER = " ".join(
    f"Ledger entry {n} notes the tides, the cargo and the weather of the week." for n in range(14)
)
# Two sentences about the question, each a good candidate alone and as a pair
# with its neighbour.
ABOUT = (
    "A permission culture is one where creators need the permission of the powerful. "
    "In a permission culture, every new work needs a lawyer's call first. "
    "A free culture leaves creators free to build on the past without asking."
)
BOOK = f"{ABOUT}\n\n{FILLER}\n\n{ABOUT}\n\n{FILLER}\n\nThe end of the permission essay."

QUESTION = "What is a permission culture?"


@pytest.fixture
def by_words_alone(monkeypatch):
    """The score by words, before meaning reorders the best candidates
    (tests/retrieve/test_meaning.py covers that step)."""
    monkeypatch.setattr("reader.retrieve.evidence.MEANING_CANDIDATES", 0)


def evidence_in(text: str, question: str) -> list:
    """The evidence for ``question`` from one chunk of ``text``, every word weighing the same."""
    chunk = Chunk("c" * 16, "d", 0, 0, len(text), text)
    return choose_evidence(Question.parse(question), [chunk])


def sentence_keys(text: str) -> list[str]:
    return [normalize_key(text[start:end]) for start, end in sentence_spans(text)]


def test_no_sentence_is_shown_twice_across_chunks_and_copies(library, make_file):
    # The paragraph is in two chunks of one document, and in a second copy of it.
    first = library.ingest(make_file("essay.txt", BOOK.encode()))
    library.ingest(make_file("essay-copy.txt", (BOOK + "\n\nA copy.").encode()))
    assert first.chunks >= 3
    chunks = [hit.chunk for hit in library.search(QUESTION, limit=10)]
    assert len({chunk.doc_id for chunk in chunks}) == 2

    evidence = choose_evidence(Question.parse(QUESTION, library.term_rarity), chunks, limit=10)
    assert len(evidence) >= 2
    said = Counter(key for item in evidence for key in sentence_keys(item.text))
    assert said and max(said.values()) == 1, said
    # The pairs and single sentences chosen are each what their keys say.
    for item in evidence:
        assert list(item.sentences) == sentence_keys(item.text)


def test_passages_answer_repeats_no_sentence(library, make_file):
    library.ingest(make_file("essay.txt", BOOK.encode()))
    library.ingest(make_file("essay-copy.txt", (BOOK + "\n\nA copy.").encode()))
    answer = Answerer(library, None).ask(QUESTION)
    assert answer.claims
    said = Counter(key for claim in answer.claims for key in sentence_keys(claim.claim.quote))
    assert max(said.values()) == 1, said
    assert all(claim.verified for claim in answer.claims)
    assert any("permission" in readable(claim.claim.quote) for claim in answer.claims)


REGIMENS = (
    "Children under three are not treated with these medicines. "
    "The treatment regimens recommended for children aged 3 to 11 years are:\n\n"
    "• sofosbuvir/daclatasvir for 12 weeks in all genotypes.\n"
    "• sofosbuvir/ledipasvir for 12 weeks in genotypes 1, 4, 5 and 6.\n"
    "• glecaprevir/pibrentasvir for 8 weeks in all genotypes.\n\n"
    "Dosing follows the weight bands in the annex."
)


def test_a_sentence_introducing_a_list_brings_the_list(library, make_file):
    from reader.records import Chunk

    chunk = Chunk("c" * 16, "d", 0, 0, len(REGIMENS), REGIMENS)
    question = "Which treatment regimens are recommended for children aged 3 to 11?"
    evidence = choose_evidence(Question.parse(question), [chunk])
    best = evidence[0].text
    assert best.startswith("The treatment regimens recommended for children aged 3 to 11")
    assert "glecaprevir/pibrentasvir for 8 weeks" in best
    assert "Dosing follows" not in best
    # Evidence is a span of the chunk's reading text, as every quote must be.
    assert chunk.reading_text[evidence[0].start : evidence[0].end] == best


def test_a_lead_in_alone_ranks_below_the_lead_in_with_its_list():
    from reader.records import Chunk

    lead_in = "The treatment regimens recommended for children aged 3 to 11 years are:"
    chunk = Chunk("c" * 16, "d", 0, 0, len(REGIMENS), REGIMENS)
    question = "Which treatment regimens are recommended for children aged 3 to 11?"
    evidence = choose_evidence(Question.parse(question), [chunk], limit=12)
    assert all(item.text != lead_in for item in evidence[:1])


# Two sentences with the same words of the question; one holds what is asked for.
KINDS = [
    (
        "What settlement amount did the label insist on before it would drop the suit?",
        "The label would insist on a settlement before it would drop the suit, she said.",
        "The label would insist on a settlement of twelve thousand dollars to drop the suit.",
    ),
    (
        "How long did protection last under the first statute?",
        "Protection under the first statute did last, and the printers took note.",
        "Protection under the first statute did last for fourteen years.",
    ),
    (
        "On what day did the courier leave the harbour?",
        "The courier did leave the harbour by the north road, with the mail.",
        "The courier did leave the harbour on the third day of September, 1838.",
    ),
    (
        "What explanation is given for the smaller model lagging on recall?",
        "The smaller model is lagging on recall, as the table shows.",
        "The smaller model lagging on recall is attributed to its shorter training.",
    ),
    (
        # Both hold a number; a share is asked for.
        "How often did the old drugs cure the children?",
        "The old drugs did cure the children in 48 weeks.",
        "The old drugs did cure 52% of the children treated in the eleven clinics of the trial.",
    ),
]
WORDY = " ".join(
    "The tides, the cargo and the weather of the week were noted in the ledger." for _ in range(12)
)


def test_the_sentence_holding_the_kind_of_answer_asked_for_ranks_first(
    library, make_file, by_words_alone
):
    for index, (question, without, holding) in enumerate(KINDS):
        text = f"{without}\n\n{WORDY}\n\n{holding}\n\n{WORDY}"
        doc_id = library.ingest(make_file(f"kind-{index}.txt", text.encode())).doc_id
        chunks = [hit.chunk for hit in library.search(question, doc_id=doc_id, limit=10)]
        best = choose_evidence(Question.parse(question, library.term_rarity), chunks, limit=4)[0]
        assert readable(best.text).startswith(holding), (question, best.text)


PRIORITIES = (
    "These updated guidelines build on the 2018 guidelines on treatment and the 2017 "
    "guidelines on testing. The three priority areas are:\n\n"
    "• treatment of adolescents and children from three years of age\n\n"
    "• simplified service delivery through decentralization and task sharing\n\n"
    "• point-of-care viral load and reflex testing.\n\n"
    "Each area has a chapter of its own."
)


def test_a_sentence_followed_by_a_lead_in_brings_the_list_too():
    """The sentence before a lead-in may hold the question's words; the evidence
    then runs on through the list, never stopping at "are:"."""
    from reader.records import Chunk

    chunk = Chunk("c" * 16, "d", 0, 0, len(PRIORITIES), PRIORITIES)
    question = "What are the three priority areas of the updated guidelines?"
    best = choose_evidence(Question.parse(question), [chunk])[0].text
    assert best.startswith("These updated guidelines build on")
    assert "point-of-care viral load and reflex testing." in best
    assert not best.rstrip().endswith(":")


def test_a_part_of_a_hyphenated_word_matches_the_word_asked_about():
    # "trained" in the question is found as part of "pre-trained" in the text.
    question = "Which corpus was the model trained on?"
    other = "The model ran on a corpus of letters, which the editors kept."
    holding = "The model was pre-trained on a corpus of court records."
    text = f"{other}\n\n{WORDY}\n\n{holding}"
    chunk = Chunk("c" * 16, "d", 0, 0, len(text), text)
    best = choose_evidence(Question.parse(question), [chunk])[0]
    assert readable(best.text) == holding


# An acronym in the text and the words it stands for in the question, and the other way.
ACRONYMS = [
    (
        "To what value was the rotary position embedding base raised?",
        "The rotary embedding of each position was kept as the base.",
        "We raised the base frequency of RoPE to 1,000,000.",
    ),
    (
        "Which drugs cure most children with HCV infection?",
        "The drugs were given to children with an infection.",
        "Sofosbuvir cures the infection in children with hepatitis C virus.",
    ),
]


@pytest.mark.parametrize(("question", "other", "holding"), ACRONYMS)
def test_an_acronym_matches_the_words_it_stands_for(question, other, holding, by_words_alone):
    text = f"{other}\n\n{WORDY}\n\n{holding}"
    chunk = Chunk("c" * 16, "d", 0, 0, len(text), text)
    best = choose_evidence(Question.parse(question), [chunk])[0]
    assert readable(best.text) == holding


def test_a_question_of_one_word_has_no_runs_to_spell_out():
    text = "Lighthouses are tall. Keepers lived there for years and years."
    chunk = Chunk("c" * 16, "d", 0, 0, len(text), text)
    best = choose_evidence(Question.parse("Lighthouses?"), [chunk])[0]
    assert best.matched == best.asked == 1


FIRE = (
    "In 1770, while he and his mother were away from home, the old house burned down. "
    'When news of this came to Jefferson, he said to the slave who had told him: "Did you save '
    'any of my books?" "No, master," said the slave, "but we did save your fiddle." '
    "He loved his fiddle all his life."
)


def test_a_question_in_the_text_brings_the_sentence_that_replies():
    """The text's own question names the topic; its answer is the reply after it."""
    question = "When Jefferson's home burned down, which belongings did the servants rescue?"
    best = evidence_in(FIRE, question)[0]
    assert best.text.startswith("In 1770"), best.text
    assert best.text.endswith('"but we did save your fiddle."'), best.text


CITED = "Peginterferon plus ribavirin for chronic hepatitis C virus infection in children."
FINDING = (
    "Before the new drugs, peginterferon with ribavirin cured about 52% of children "
    "with genotype 1 infection."
)


@pytest.mark.parametrize(
    ("heading", "listed_first"),
    [(("Chapter 2", "References"), FINDING), (("Chapter 2", "Treatment history"), CITED)],
)
def test_an_entry_of_a_reference_list_ranks_below_a_finding(heading, listed_first, by_words_alone):
    """A cited title holds a question's words as well as a finding does, and says nothing."""
    rarity = lambda terms: dict.fromkeys(terms, 1.0)  # noqa: E731
    citing = Chunk("c" * 16, "d", 0, 0, len(CITED), CITED, heading=heading)
    finding = Chunk("f" * 16, "d", 1, 100, 100 + len(FINDING), FINDING, heading=("Chapter 1",))
    question = "How often did peginterferon plus ribavirin cure chronic infection in children?"
    best = choose_evidence(Question.parse(question, rarity), [citing, finding])[0]
    assert best.text == listed_first


@pytest.mark.parametrize(
    "heading", [("Chapter 2", "References"), ("Chapter 2", "Treatment history")]
)
def test_by_words_and_meaning_a_finding_ranks_above_a_cited_title(heading):
    rarity = lambda terms: dict.fromkeys(terms, 1.0)  # noqa: E731
    citing = Chunk("c" * 16, "d", 0, 0, len(CITED), CITED, heading=heading)
    finding = Chunk("f" * 16, "d", 1, 100, 100 + len(FINDING), FINDING, heading=("Chapter 1",))
    question = "How often did peginterferon plus ribavirin cure chronic infection in children?"
    assert choose_evidence(Question.parse(question, rarity), [citing, finding])[0].text == FINDING


COUNTING = (
    "Each handle is released once.\n\nReference Counting\n\n"
    "As mentioned above, most objects of the library are reference counted. "
    "Think of these object pointers as handles.\n\n"
    "Costs of Compliance\n\n"
    "The agency estimates that the rule affects 73 airplanes of the registry."
)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "Which objects of the library are reference counted?",
            "As mentioned above, most objects of the library are reference counted.",
        ),
        (
            "What are the costs of compliance, in airplanes affected?",
            "The agency estimates that the rule affects 73 airplanes of the registry.",
        ),
    ],
)
def test_a_heading_is_never_run_into_the_sentences_around_it(question, expected):
    evidence = evidence_in(COUNTING, question)
    assert evidence[0].text == expected
    assert not any("Reference Counting" in item.text for item in evidence)
    assert not any("Costs of" in item.text for item in evidence)


BOX = (
    "The laboratories serve a hospital of 1200 beds in the city.\n\n"
    "Case study: reflex testing for diagnosis in Barcelona\n\n"
    "In Barcelona this cut the time to a diagnosis from four weeks to two days."
)


def test_a_heading_holding_the_questions_words_ranks_below_the_sentence_that_answers():
    # The heading names what the section is about; the sentences under it say it.
    question = "How much faster did reflex testing in Barcelona make the diagnosis?"
    best = evidence_in(BOX, question)[0]
    assert best.text.startswith("In Barcelona this cut the time")


# A question about one numbered case, a sentence on another case that holds more of its
# words, and the sentence on the case asked about.
NUMBERED = [
    (
        "For cirrhotic patients with genotype 3 on sofosbuvir/daclatasvir, what cure rate was"
        " reached after 24 weeks?",
        "Cirrhotic patients with genotype 5 on sofosbuvir/daclatasvir reached a cure rate of 92%"
        " after 12 weeks.",
        "With genotype 3 the cure rate reached 90% after 24 weeks.",
    ),
    (
        "Which parser does version 2.4 of the viewer use for fonts?",
        "The viewer in version 2.3 used its own parser for fonts and images.",
        "Since version 2.4 fonts are read by the bundled parser.",
    ),
]


@pytest.mark.parametrize(("question", "other", "holding"), NUMBERED)
def test_a_sentence_on_the_numbered_case_asked_about_ranks_above_another_case(
    question, other, holding
):
    text = f"{other}\n\n{WORDY}\n\n{holding}"
    assert readable(evidence_in(text, question)[0].text) == holding
    # Asked about the other case, the other sentence comes first.
    asked_other = question.replace("genotype 3", "genotype 5").replace("24 weeks", "12 weeks")
    asked_other = asked_other.replace("version 2.4", "version 2.3")
    assert readable(evidence_in(text, asked_other)[0].text) == other
