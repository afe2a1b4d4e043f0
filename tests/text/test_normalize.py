from reader.text.normalize import normalize, normalize_key
from reader.text.words import search_form


def span_of(source: str, quote: str) -> str:
    norm = normalize(source)
    key = normalize_key(quote)
    position = norm.key.find(key)
    assert position >= 0, (norm.key, key)
    start, end = norm.span(position, position + len(key))
    return source[start:end]


def test_runs_of_dashes_fold_to_one():
    assert normalize_key("yes -- no") == normalize_key("yes \u2014 no") == "yes - no"


def test_key_folds_case_quotes_dashes_and_whitespace():
    assert normalize_key("  \u201cIt\u2019s  A\n\tTest\u201d \u2014 ok ") == '"it\'s a test" - ok'


def test_ligatures_and_compatibility_forms_expand():
    assert normalize_key("\ufb01nance \ufb02ow \uff21\uff22") == "finance flow ab"


def test_arabic_presentation_forms_fold_to_base_letters():
    assert normalize_key("\ufe8d\ufee0\ufecc\ufeae\ufe91\ufef4\ufe94") == normalize_key("العربية")


def test_soft_hyphens_and_line_end_hyphens_vanish():
    assert normalize_key("con\u00adtinued") == "continued"
    assert normalize_key("con-\ntinued") == "continued"
    assert normalize_key("well-known") == normalize_key("wellknown")
    # a hyphen between digits is a range, not a line-end break
    assert normalize_key("10-20") == "10-20"


def test_spaces_between_cjk_characters_vanish():
    assert normalize_key("中 文  字") == "中文字"
    assert normalize_key("a b") == "a b"


def test_offsets_map_back_to_exact_characters_after_collapsed_whitespace():
    source = "Intro   text\n\n\n   with    gaps.  The \u201cquoted\u201d  part here."
    assert span_of(source, 'the "quoted" part') == "The \u201cquoted\u201d  part"


def test_offsets_cover_a_ligature_and_a_line_end_hyphen():
    source = "We \ufb01nd it con-\ntinues."
    assert span_of(source, "find it continues") == "\ufb01nd it con-\ntinues"


def test_expansion_before_the_match_does_not_shift_it():
    source = "\ufb03 \ufb04 \u00df and then the target words"
    assert span_of(source, "the target") == "the target"


def test_search_form_spaces_cjk_and_folds_ligatures():
    assert search_form("\ufb01ne 中文") == "fine  中  文 "


def test_a_quote_ending_where_a_line_broke_a_word_keys_as_the_word_the_text_joins():
    """An evidence sentence cut at a page break ends "from Soekarno-"; the text's key joins
    "Soekarno-" and "Hatta", so the quote's trailing hyphen kept it from matching."""
    assert normalize_key("after takeoff from Soekarno-") == "after takeoff from soekarno"
    assert normalize_key("from Soekarno-Hatta") == "from soekarnohatta"
    assert normalize("from Soekarno- ").key == "from soekarno"
    assert normalize_key("a - b") == "a - b" and normalize_key("-") == "-"
