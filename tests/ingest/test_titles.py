"""Title choice: the junk titles real documents gave, and the real ones they have."""

from __future__ import annotations

import pymupdf
import pytest

from reader.ingest.extract import extract
from reader.ingest.layout import TextBlock, page_blocks, page_dict_blocks
from reader.ingest.ocr import OcrSettings
from reader.ingest.titles import (
    TitleLine,
    choose_title,
    clean_title,
    first_pages_title,
    is_real_title,
    readable_file_name,
    repeated_lines,
    title_page_title,
    without_running_lines,
)
from reader.records import Heading


@pytest.mark.parametrize(
    "junk",
    [
        "jbell on DSKJLSW7X2PROD with PROPOSALS",  # the Federal Register's printer's slug
        "VerDate Sep<11>2014 17:54 Aug 05, 2020 Jkt 250001 PO 00000 Frm 00001",
        "arXiv:2407.10671v4 [cs.CL] 10 Sep 2024",
        "ACKNOWLEDGEMENTS",  # the WHO guidelines' first heading
        "Introduction",  # the Qwen2 report's first outline entry
        "Preface",  # MuPDF Explored's first heading
        "1. Introduction",
        "I. INTRODUCTION",
        "Chapter One",
        "CHAPTER 12",
        "Table of Contents",
        "ABBREVIATIONS AND ACRONYMS",
        "Inhaltsverzeichnis",
        "目 录",
        "Proposed Rules",  # the Federal Register's section, set largest on its first page
        "pandp.dvi",  # metadata naming the file the PDF was made from
        "SoriaComas_DomingoFerrer_Sanchez_Megias_iDP-R2_rev_dmegias-david-josep2.pdf",
        "Document1",
        "Untitled-3",
        "November 29, 2007",  # a memo's metadata: its date
        "Thursday, August 6, 2020",
        "47698",  # a page number in large type
        "=~O-AMAZ+H",  # OCR of a Chinese scan read as English
        "❚❘❙❚❘❙❚❘❙❚❙❚❘❙❚❘❙",  # Free Culture's cover ornament
        "",
    ],
)
def test_junk_is_not_a_title(junk):
    assert not is_real_title(clean_title(junk))


@pytest.mark.parametrize(
    "title",
    [
        "Free Culture",
        "2010 Form 1040",
        "Pretest วิชาสามัญ (2564)",
        "QWEN2 TECHNICAL REPORT",
        "MuPDF Explored",
        "High-Performance Computing (HPC) Security: Architecture, Threat Analysis, and "
        "Security Posture",
        "Trace-based Just-in-Time Type Specialization for Dynamic Languages",
        "IMM1344 E : APPLICATION TO SPONSOR, SPONSORSHIP AGREEMENT AND UNDERTAKING",
        "Verificación de Elegibilidad de Empleo",
        "东北电气发展股份有限公司",
        "NICS Firearm Background Checks November - 2015",
        "Introduction to Algorithms",
        "The Book of May",
        "A Book",
        "I Robot",
    ],
)
def test_real_titles_are_titles(title):
    assert is_real_title(clean_title(title))


def test_cleaning_drops_a_programs_prefix_and_stray_punctuation():
    assert clean_title("- Benutzerhandbuch") == "Benutzerhandbuch"
    assert clean_title("Microsoft Word - Annual report 2019.") == "Annual report 2019."
    assert clean_title("IMM1344 E  :\n APPLICATION ") == "IMM1344 E : APPLICATION"


def test_file_names_read_as_words():
    name = "pdfplumber-federal-register-2020-17221-threecolumn.pdf"
    assert readable_file_name(name) == "pdfplumber federal register 2020 17221 threecolumn"
    assert readable_file_name("my_notes.txt") == "my notes"
    assert readable_file_name("Annual Report - final.pdf") == "Annual Report - final"
    assert readable_file_name(".profile") == ".profile"


def test_the_first_real_candidate_wins_else_the_file_name():
    assert choose_title(["Free Culture", "COVER"], "freeculture.pdf") == "Free Culture"
    assert choose_title(["pandp.dvi", "Pride and Prejudice"], "p.pdf") == "Pride and Prejudice"
    assert choose_title(["Microsoft Word - Document1", ""], "pdfjs-rotation.pdf") == (
        "pdfjs rotation"
    )
    assert len(choose_title(["word " * 60], "x.pdf")) == 200


def body(page: int, count: int = 30, size: float = 10.0) -> list[TitleLine]:
    return [TitleLine(f"Body text line {n} of the page.", size, page) for n in range(count)]


def test_the_largest_type_of_the_first_page_is_the_title():
    lines = [
        TitleLine("QWEN2 TECHNICAL REPORT", 17.2, 0),
        TitleLine("ABSTRACT", 12.0, 0),
        *body(0),
        TitleLine("CONTENTS", 12.0, 1),
        *body(1),
    ]
    assert title_page_title(lines, set(), pages=26) == "QWEN2 TECHNICAL REPORT"


def test_a_title_set_on_several_lines_is_read_whole():
    lines = [
        TitleLine("UPDATED RECOMMENDATIONS ON", 16.0, 0),
        TitleLine("TREATMENT OF ADOLESCENTS AND", 25.0, 0),
        TitleLine("CHILDREN WITH CHRONIC HCV INFECTION,", 25.0, 0),
        TitleLine("AND DIAGNOSTICS", 25.0, 0),
        *body(2, size=8.0),
    ]
    assert title_page_title(lines, set(), pages=155) == (
        "TREATMENT OF ADOLESCENTS AND CHILDREN WITH CHRONIC HCV INFECTION, AND DIAGNOSTICS"
    )


def test_generic_and_numeric_large_type_is_passed_over():
    federal_register = [
        TitleLine("Proposed Rules", 18.0, 0),
        TitleLine("47698", 11.0, 0),
        *body(0, size=9.0),
    ]
    assert title_page_title(federal_register, set(), pages=15) == ""
    # MuPDF Explored: its title page, then "Preface" set larger on page 2
    book = [TitleLine("MuPDF Explored", 17.2, 0), *body(0, 3), TitleLine("Preface", 24.8, 1)]
    assert title_page_title([*book, *body(1)], set(), pages=285) == "MuPDF Explored"


def test_repeated_lines_and_unsure_ocr_are_not_titles():
    statement = [TitleLine("TANGGAL KETERANGAN CBG MUTASI", 20.0, 0), *body(0, size=12.0)]
    assert title_page_title(statement, {"tanggal keterangan cbg mutasi"}, pages=5) == ""
    scan = [TitleLine("Aroushulh", 40.0, 0, confidence=0.0)]
    scan += [TitleLine("Rohrbuch für die Leitung", 20.0, 0, confidence=91.0)]
    scan += [TitleLine(f"Zeile {n} des Formulars", 14.0, 0, confidence=70.0) for n in range(30)]
    assert title_page_title(scan, set(), pages=8) == "Rohrbuch für die Leitung"


def test_repeated_lines_are_keyed_as_each_line_alone_would_be():
    """Keys are made for a page's lines at once: what folds to more characters, spacing
    and a line holding a line break give each line the key it has alone."""
    page = [
        TextBlock(["STRASSE  Der  Welt", "Body text one"], 10.0),
        TextBlock(["Two\nlines held in one"], 10.0),
    ]
    other = [TextBlock(["Straße der welt", "two lines held in ONE"], 10.0)]
    twice = [TextBlock(["strasse der WELT", "Body text two", "two lines  held in one"], 10.0)]
    assert repeated_lines([page, other, twice, [TextBlock(["Else"], 10.0)]]) == {
        "strasse der welt",
        "two lines held in one",
    }


def test_a_heading_repeated_on_most_pages_is_not_a_heading():
    page_starts = [0, 100, 200, 300]
    slug = "jbell on DSKJLSW7X2PROD with PROPOSALS"
    headings = [Heading(start + 5, 1, slug) for start in page_starts]
    headings.insert(1, Heading(50, 2, "Discussion of the Proposed AD"))
    assert without_running_lines(headings, page_starts) == [
        Heading(50, 2, "Discussion of the Proposed AD")
    ]


def test_a_stamp_in_the_margin_is_not_the_title(tmp_path):
    """The Qwen2 report's arXiv stamp: upright, in the margin, larger than its title."""
    document = pymupdf.open()
    page = document.new_page(width=612, height=792)
    page.insert_text((30, 600), "arXiv:2407.10671v4 [cs.CL] 10 Sep 2024", fontsize=20, rotate=90)
    page.insert_text((72, 100), "A Report on Harbour Tolls", fontsize=17)
    for n in range(30):
        page.insert_text((72, 140 + 18 * n), f"Body line {n} of the report.", fontsize=10)
    path = tmp_path / "report.pdf"
    document.save(path)
    document.close()
    assert extract(path, ocr=OcrSettings(mode="never")).title == "A Report on Harbour Tolls"


def test_metadata_that_is_a_file_name_gives_way_to_the_title_page(make_pdf, tmp_path):
    made = make_pdf([[("Pride and Prejudice", 20.0), "It is a truth universally acknowledged."]])
    with pymupdf.open(made) as document:
        document.set_metadata({"title": "pandp.dvi"})
        document.save(tmp_path / "pandp.pdf")
    assert extract(tmp_path / "pandp.pdf", ocr=OcrSettings(mode="never")).title == (
        "Pride and Prejudice"
    )


def test_a_markdown_file_whose_first_heading_is_generic_takes_the_next(make_file):
    path = make_file("notes.md", b"# Introduction\n\nText.\n\n# Harbour Tolls\n\nMore.\n")
    assert extract(path).title == "Harbour Tolls"
    assert extract(make_file("my_notes.txt", b"Just some text.\n")).title == "my notes"


def test_the_title_read_from_blocks_extracted_already_is_the_title_read_afresh(make_pdf):
    path = make_pdf([[("Harbour Tolls of the North", 22.0), "Body text. " * 20], ["More."]])
    with pymupdf.open(path) as document:
        pages = [page_blocks(page) for page in document]
        fresh = first_pages_title(document, pages, {})
        given = {number: page_dict_blocks(document[number]) for number in range(len(pages))}
        assert (
            first_pages_title(document, pages, {}, given) == fresh == "Harbour Tolls of the North"
        )
