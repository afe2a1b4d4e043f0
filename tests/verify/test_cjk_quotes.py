"""Chinese quotes: OCR spaces the digits and Latin letters of a Chinese line apart from
its characters ("2017 年 9 月 7 日 ,当事人"), and a quote copied as printed has none."""

from __future__ import annotations

from reader.ingest.chunking import chunk_text
from reader.records import Document
from reader.text.normalize import normalize_key
from reader.text.words import words
from reader.verify import DocumentVerifier
from reader.verify.grounding import check_grounding

# A page of a penalty decision as Tesseract's chi_sim reads it, spaces and all.
OCR_PAGE = (
    "经我关调查，当事人有以下违法行为 :\n\n"
    "2017 年 9 月 7 日 ,当事人申领了编号为 C23067150841\n"
    "的进料加工手册，备案进口无缝钢管、焊管、弯头等 29 种规\n"
    "格型号原料。\n\n"
    "决定对当事人科处罚款人民币 45000 元。"
)


def verifier_for(text: str) -> DocumentVerifier:
    document = Document("doc", "t", "/t", "pdf", text, [0], "test")
    return DocumentVerifier(document, chunk_text("doc", text, [0], []))


def test_spaces_beside_cjk_characters_do_not_count():
    assert normalize_key("2017 年 9 月 7 日 ,当事人") == normalize_key("2017年9月7日，当事人")
    assert normalize_key("编号为 C23067150841\n的手册") == normalize_key("编号为C23067150841的手册")
    assert normalize_key("等 29 种规\n格型号") == "等29种规格型号"
    # Without a CJK character, spaces still separate words.
    assert normalize_key("2017 9 7 , C2306") == "2017 9 7 , c2306"
    assert normalize_key("a b") == "a b"


def test_a_quote_copied_without_the_ocr_spaces_verifies_exactly_where_it_is():
    verifier = verifier_for(OCR_PAGE)
    for quote, source in [
        (
            "2017年9月7日，当事人申领了编号为C23067150841的进料加工手册",
            "2017 年 9 月 7 日 ,当事人申领了编号为 C23067150841\n的进料加工手册",
        ),
        ("备案进口无缝钢管、焊管、弯头等29种规格型号原料。", None),
        ("决定对当事人科处罚款人民币45000元。", "决定对当事人科处罚款人民币 45000 元。"),
    ]:
        result = verifier.verify(quote)
        assert result.status == "exact", (quote, result)
        assert result.start is not None and result.end is not None
        if source is not None:
            assert OCR_PAGE[result.start : result.end] == source


def test_a_quote_with_another_figure_is_not_found():
    result = verifier_for(OCR_PAGE).verify("决定对当事人科处罚款人民币46000元。")
    assert not result.verified


def test_digits_in_a_run_of_cjk_characters_are_one_number():
    assert words("2018年1月16日复牌") == ["2018", "年", "1", "月", "16", "日", "复", "牌"]
    assert words("持有3,789,500股") == ["持", "有", "3,789,500", "股"]
    assert words("负责人A股", cjk_pairs=True) == ["负责", "责人", "a", "股"]


def test_a_chinese_claim_is_grounded_by_the_figure_its_quote_gives():
    quote = "决定对当事人科处罚款人民币 45000 元。"
    assert check_grounding("罚款人民币45000元", quote).grounded
    grounding = check_grounding("罚款人民币46000元", quote)
    assert not grounding.grounded
    assert "46000" in grounding.missing
