"""Chinese questions on Chinese documents: searched by pairs of characters, answered by
the sentence that holds the question's words, and declined when none does."""

from __future__ import annotations

from reader.answer import Answerer
from reader.records import Chunk
from reader.retrieve import build_fts_query
from reader.retrieve.asked import question_terms
from reader.retrieve.evidence import answers_question, choose_evidence
from reader.retrieve.question import Question

# A report's paragraphs, in the manner of a Chinese quarterly report.
REPORT = "\n\n".join(
    [
        "公司董事会、监事会及董事、监事、高级管理人员保证季度报告内容的真实、准确、完整。",
        "公司负责人刘道骐、主管会计工作负责人肖寻及会计机构负责人钱扣明声明：保证季度报告中"
        "财务报表的真实、准确、完整。",
        "本次重大资产出售事项尚须股东大会审议通过。公司A股股票于2018年1月16日上午开市起复牌。",
        "报告期内营业收入为4,755,785.11元，比上年同期减少16.55%。",
    ]
)


def even_rarity(terms: list[str]) -> dict[str, float]:
    return dict.fromkeys(terms, 1.0)


def test_a_chinese_question_asks_for_pairs_of_its_characters_without_its_question_words():
    assert question_terms("公司负责人是谁？") == ["公司", "司负", "负责", "责人"]
    terms = ["新锦", "锦容", "股权", "权出", "出售", "售给", "公司"]
    assert question_terms("新锦容的股权出售给了哪家公司？") == terms
    # Digits and Latin letters in a run of characters are words of their own; a
    # character left alone ("年") is no term.
    terms = ["公司", "股股", "股票", "票在", "2018", "复牌"]
    assert question_terms("公司A股股票在2018年何时复牌？") == terms


def test_an_english_question_keeps_its_words():
    terms = ["person", "charge", "company"]
    assert question_terms("Who is the person in charge of the company?") == terms


def test_a_run_of_cjk_characters_is_searched_as_its_pairs():
    assert build_fts_query("公司负责人") == '"公 司" OR "司 负" OR "负 责" OR "责 人"'
    assert build_fts_query("A股 report") == '"A" OR "股" OR "report"'


def test_a_chinese_question_finds_the_paragraph_that_answers_it(library, make_file):
    result = library.ingest(make_file("report.txt", REPORT.encode()))
    hits = library.search("公司负责人是谁？", doc_id=result.doc_id)
    assert hits
    assert "刘道骐" in hits[0].chunk.text


def test_the_sentence_holding_the_answer_is_the_first_evidence():
    chunk = Chunk("c" * 16, "d", 0, 0, len(REPORT), REPORT)
    evidence = choose_evidence(Question.parse("公司负责人是谁？", even_rarity), [chunk])
    assert answers_question(evidence)
    assert evidence[0].text.startswith("公司负责人刘道骐")
    evidence = choose_evidence(Question.parse("公司A股股票何时复牌？", even_rarity), [chunk])
    assert answers_question(evidence)
    assert "2018年1月16日上午开市起复牌" in evidence[0].text


def test_pairs_of_one_word_count_as_one_word_of_the_question():
    # "当事人" is one word (two overlapping pairs): a report that holds it and nothing
    # else of the question does not answer what the person's registered capital is.
    text = "当事人在从事加工贸易过程中未如实申报边角料。当事人应当在十五日内履行处罚决定。"
    chunk = Chunk("c" * 16, "d", 0, 0, len(text), text)
    evidence = choose_evidence(Question.parse("当事人的注册资本是多少？", even_rarity), [chunk])
    assert evidence and evidence[0].matched == 1
    assert not answers_question(evidence)


def test_a_chinese_answer_without_a_model_quotes_the_answer_and_verifies(library, make_file):
    library.ingest(make_file("report.txt", REPORT.encode()))
    answer = Answerer(library, None, mode="passages", record=False).ask("公司负责人是谁？")
    assert answer.not_found is None
    assert "刘道骐" in answer.claims[0].claim.quote
    assert all(claim.verified for claim in answer.claims)


def test_a_chinese_question_the_report_does_not_answer_is_declined(library, make_file):
    library.ingest(make_file("report.txt", REPORT.encode()))
    answer = Answerer(library, None, mode="passages", record=False).ask("谁赢得了世界杯？")
    assert answer.not_found is not None
    assert not answer.claims
