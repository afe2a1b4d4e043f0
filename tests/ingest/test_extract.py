import pymupdf
import pytest

from reader.errors import (
    CorruptDocumentError,
    DecodingError,
    EmptyDocumentError,
    EncryptedDocumentError,
    FileMissingError,
    NoTextLayerError,
    UnsupportedFormatError,
)
from reader.ingest import document_id, read_document
from reader.ingest.extract import extract
from reader.ingest.ocr import OcrSettings

PARAGRAPH = "Reader keeps every offset honest. Quotes are checked by a program."


def test_pdf_pages_are_joined_with_a_page_map(make_pdf):
    path = make_pdf([["First page text."], ["Second page text."], ["Third page."]])
    extraction = extract(path)
    assert extraction.text == "First page text.\n\nSecond page text.\n\nThird page."
    assert extraction.page_starts == [0, 18, 37]
    assert extraction.kind == "pdf"
    assert extraction.extractor.startswith("pymupdf-")


def test_pdf_blocks_become_paragraphs_and_lines_stay_lines(make_pdf):
    long = "word " * 60
    path = make_pdf([[long.strip(), "A second paragraph."]])
    text = extract(path).text
    first, second = text.split("\n\n")
    assert "\n" in first  # the wrapped paragraph keeps its printed line breaks
    assert " ".join(first.split()) == long.strip()
    assert second == "A second paragraph."


def test_outline_gives_headings_placed_at_their_titles(make_pdf):
    path = make_pdf(
        [[("Introduction", 18), PARAGRAPH], [("Methods", 18), PARAGRAPH, ("Data", 14), PARAGRAPH]],
        toc=[[1, "Introduction", 1], [1, "Methods", 2], [2, "Data", 2]],
    )
    extraction = extract(path)
    titles = [
        (h.title, h.level, extraction.text[h.offset : h.offset + len(h.title)])
        for h in extraction.headings
    ]
    assert titles == [
        ("Introduction", 1, "Introduction"),
        ("Methods", 1, "Methods"),
        ("Data", 2, "Data"),
    ]


def test_without_outline_large_type_gives_headings(make_pdf):
    path = make_pdf(
        [[("Chapter One", 20), PARAGRAPH, PARAGRAPH, ("A Section", 15), PARAGRAPH, PARAGRAPH]]
    )
    headings = extract(path).headings
    assert [(h.title, h.level) for h in headings] == [("Chapter One", 1), ("A Section", 2)]


def test_encrypted_pdf_needs_the_right_password(make_pdf):
    path = make_pdf(
        [[PARAGRAPH]],
        name="locked.pdf",
        encryption=pymupdf.PDF_ENCRYPT_AES_256,
        user_pw="s3cret",
        owner_pw="owner",
    )
    with pytest.raises(EncryptedDocumentError, match="--password"):
        extract(path)
    with pytest.raises(EncryptedDocumentError, match="not right"):
        extract(path, password="wrong")
    assert extract(path, password="s3cret").text == PARAGRAPH


def test_scanned_pdf_without_ocr_says_to_read_it_by_ocr(tmp_path):
    document = pymupdf.open()
    page = document.new_page()
    pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), False)
    pixmap.clear_with(180)
    page.insert_image(pymupdf.Rect(50, 50, 300, 300), pixmap=pixmap)
    path = tmp_path / "scan.pdf"
    document.save(path)
    with pytest.raises(NoTextLayerError, match=r"looks scanned.*--ocr auto"):
        extract(path, ocr=OcrSettings("never"))
    # A scan of a blank sheet: OCR runs and says it found nothing.
    with pytest.raises(NoTextLayerError, match="OCR found no text on page 1"):
        extract(path)


def test_partly_scanned_pdf_ingests_with_a_warning(make_pdf):
    path = make_pdf([[PARAGRAPH], [], [PARAGRAPH]])
    extraction = extract(path)
    assert extraction.page_starts[1] == extraction.page_starts[2] - 2
    assert extraction.warnings == [
        "1 of 3 pages has no text (scanned or blank): page 2 cannot be searched or cited."
    ]


def test_several_empty_pages_are_listed_in_the_plural(make_pdf):
    extraction = extract(make_pdf([[PARAGRAPH], [], [PARAGRAPH], [], []]))
    assert extraction.warnings == [
        "3 of 5 pages have no text (scanned or blank): pages 2, 4 and 5 cannot be searched "
        "or cited."
    ]


@pytest.mark.parametrize(
    ("name", "data", "error"),
    [
        ("empty.pdf", b"", EmptyDocumentError),
        ("garbage.pdf", b"this is not a pdf at all" * 10, CorruptDocumentError),
        ("truncated.pdf", b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog", CorruptDocumentError),
        ("slides.pptx", b"PK\x03\x04 not supported", UnsupportedFormatError),
        ("binary.txt", bytes(range(256)) * 20, DecodingError),
        ("zeros.txt", bytes(4096), DecodingError),
        ("nul-in-utf8.md", b"# Title\n\nSome text\x00with a NUL byte in it.", DecodingError),
        ("utf16-no-bom.txt", "Plain words in UTF-16.".encode("utf-16-le"), DecodingError),
        ("controls.txt", bytes(range(1, 9)) * 200 + b"a few words", DecodingError),
        ("blank.txt", b"  \n\n\t ", EmptyDocumentError),
    ],
)
def test_bad_files_raise_one_line_errors(make_file, name, data, error):
    path = make_file(name, data)
    with pytest.raises(error) as raised:
        extract(path)
    message = str(raised.value)
    assert "\n" not in message
    assert name in message


def test_nul_bytes_are_named_in_the_refusal(make_file):
    with pytest.raises(DecodingError, match="NUL bytes"):
        extract(make_file("zeros.txt", bytes(1000)))


def test_terminal_colour_codes_do_not_make_a_log_binary(make_file):
    log = "".join(f"\x1b[32mok\x1b[0m step {n} finished\n" for n in range(50))
    assert extract(make_file("build.txt", log.encode())).text == log


def test_missing_file(tmp_path):
    with pytest.raises(FileMissingError):
        extract(tmp_path / "nope.pdf")


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("Caf\u00e9 na\u00efve \u2014 ok".encode(), "Caf\u00e9 na\u00efve \u2014 ok"),
        (b"\xef\xbb\xbf" + "Caf\u00e9".encode(), "Caf\u00e9"),
        ("Caf\u00e9 cr\u00e8me".encode("latin-1"), "Caf\u00e9 cr\u00e8me"),
        ("Caf\u00e9 \u2019quoted\u2019".encode("cp1252"), "Caf\u00e9 \u2019quoted\u2019"),
        ("Caf\u00e9 \u4e2d\u6587".encode("utf-16"), "Caf\u00e9 \u4e2d\u6587"),
        (b"line one\r\nline two\rline three", "line one\nline two\nline three"),
    ],
)
def test_text_files_decode_in_common_encodings(make_file, data, expected):
    assert extract(make_file("note.txt", data)).text == expected


def test_form_feeds_mark_pages_in_plain_text(make_file):
    extraction = extract(make_file("paged.txt", b"page one\n\fpage two\n\fpage three"))
    assert extraction.page_starts == [0, 10, 20]
    assert "\f" not in extraction.text
    assert extraction.text[10:18] == "page two"


def test_markdown_headings_skip_code_fences(make_file):
    source = "# Title\n\nIntro.\n\n```\n# not a heading\n```\n\n## Part\n\nBody.\n"
    extraction = extract(make_file("notes.md", source.encode()))
    assert [(h.title, h.level) for h in extraction.headings] == [("Title", 1), ("Part", 2)]
    assert extraction.title == "Title"
    assert extraction.text == source


def test_plain_text_chapter_lines_are_headings(make_file):
    source = "Title: A Book\n\nCHAPTER I\n\nIt began.\n\n1.2 Scope of Work\n\nText.\n"
    extraction = extract(make_file("book.txt", source.encode()))
    assert [(h.title, h.level) for h in extraction.headings] == [
        ("CHAPTER I", 1),
        ("1.2 Scope of Work", 2),
    ]
    assert extraction.title == "A Book"


def test_document_id_depends_on_content_only(make_file, tmp_path):
    first = make_file("a.txt", b"same bytes")
    second = make_file("b.txt", b"same bytes")
    third = make_file("c.txt", b"other bytes")
    assert document_id(first) == document_id(second) != document_id(third)
    renamed = tmp_path / "renamed.txt"
    first.rename(renamed)
    assert document_id(renamed) == document_id(second)


def test_epub_opens_through_pymupdf(tmp_path):
    # An EPUB is a zip of XHTML; build a minimal valid one.
    import zipfile

    path = tmp_path / "book.epub"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        archive.writestr(
            "META-INF/container.xml",
            '<?xml version="1.0"?><container version="1.0" '
            'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
            '<rootfile full-path="content.opf" media-type="application/oebps-package+xml"/>'
            "</rootfiles></container>",
        )
        archive.writestr(
            "content.opf",
            '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="2.0">'
            '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Tiny</dc:title>'
            '</metadata><manifest><item id="c1" href="c1.xhtml" '
            'media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c1"/>'
            "</spine></package>",
        )
        archive.writestr(
            "c1.xhtml",
            '<html xmlns="http://www.w3.org/1999/xhtml"><body><h1>Opening</h1>'
            f"<p>{PARAGRAPH}</p></body></html>",
        )
    document, chunks = read_document(path)
    assert document.kind == "epub"
    assert PARAGRAPH in " ".join(document.text.split())
    assert chunks and all(document.text[c.start : c.end] == c.text for c in chunks)


def test_a_figures_placeholder_code_set_large_is_not_a_heading(library, make_pdf):
    body = "The agency proposes to amend the rule for the airworthiness of the engines. " * 4
    path = make_pdf(
        [
            [("Background of the Proposal", 16), body, ("EP06AU20.010</GPH>", 16), body],
            [("Discussion", 16), body, ("EP06AU20.011</GPH> EP06AU20.012</GPH>", 16), body],
        ],
        name="register.pdf",
    )
    document = library.document(library.ingest(path).doc_id)
    titles = [heading.title for heading in document.headings]
    assert titles == ["Background of the Proposal", "Discussion"], titles
