"""The sample document shipped with reader, and the question the self-test asks.

``welcome.pdf`` is built from ``SECTIONS`` by ``python -m reader.sample``; a test
checks that the shipped file still holds exactly this text.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

SAMPLE_FILE = "welcome.pdf"
SAMPLE_TITLE = "Welcome to reader"
SAMPLE_QUESTION = "What happens when you click a claim?"

SECTIONS: list[tuple[str, list[str]]] = [
    (
        "What reader does",
        [
            "reader is an offline document reader whose answers can be checked. You open a "
            "document, ask a question, and a language model running on your own computer "
            "answers with claims. Each claim carries a quote from the document and the passage "
            "it came from.",
            "Before a claim is shown, a program looks for its quote in the passage. A claim "
            "whose quote is found becomes a link. Clicking the link scrolls the text to the "
            "quoted words and highlights them. A claim whose quote cannot be found is shown "
            "without a link, together with the reason it failed.",
        ],
    ),
    (
        "Your documents stay on your computer",
        [
            "reader opens no network connection unless you give it the address of a model "
            "server. The installer carries the model that answers, Qwen2.5-Coder-1.5B-Instruct, "
            "which runs on an ordinary laptop without a graphics card. It is stored inside the "
            "application, so nothing is downloaded when you first start it.",
        ],
    ),
    (
        "Reading the original page",
        [
            "The Page tab shows the original page of a PDF. When you click a claim, the quoted "
            "words are marked on that page with rectangles, so you can compare the answer with "
            "the document as it was printed.",
        ],
    ),
    (
        "How quotes are checked",
        [
            "A quote verifies exactly when its words appear in the passage, even if line breaks, "
            "spaces, letter case or quotation marks differ. A quote verifies as fuzzy when the "
            "text layer of the PDF damaged it, for example when a ligature lost its letters. "
            "A quote is a miss when a word or a digit is different, because a changed number "
            "changes the meaning.",
            "The Health tab shows the share of claims that verified for each answer. A sudden "
            "drop usually means that a model or a document is not working well.",
        ],
    ),
    (
        "Adding your own documents",
        [
            "Drag a PDF, EPUB or text file onto the window, or choose Open in the File menu. "
            "reader extracts the text once, splits it into chunks and keeps them in a library "
            "on your computer. Scanned pages without a text layer are read by OCR, in the "
            "languages chosen in Settings.",
        ],
    ),
    (
        "Using a bigger model",
        [
            "The command reader models lists the models you can install and what each costs. "
            "Any GGUF model file in the models folder can answer too, or a llama.cpp, vLLM or "
            "Ollama server whose address you give in Settings.",
        ],
    ),
]


def sample_path() -> Path:
    """The shipped sample PDF (a real file inside the installed package or bundle)."""
    return Path(str(resources.files(__name__).joinpath(SAMPLE_FILE)))


def installed_sample() -> Path:
    """A copy of the sample in the user's reader folder, made on first use, so the
    library's path to it survives moving or upgrading the application."""
    from reader.config import reader_home

    target = reader_home() / "sample" / SAMPLE_FILE
    shipped = sample_path()
    if not target.is_file() or target.read_bytes() != shipped.read_bytes():
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".partial")
        partial.write_bytes(shipped.read_bytes())
        partial.replace(target)
    return target


def sample_offered() -> bool:
    """Whether the sample was ever opened for this user (then a first launch is over,
    even if the user removed it from the library)."""
    from reader.config import reader_home

    return (reader_home() / "sample" / SAMPLE_FILE).is_file()


def build_sample(out: Path) -> None:
    """Write the sample PDF: a title, one heading per section, an outline."""
    import pymupdf

    parts = [f"<h1>{SAMPLE_TITLE}</h1>"]
    for heading, paragraphs in SECTIONS:
        parts.append(f"<h2>{heading}</h2>")
        parts.extend(f"<p>{paragraph}</p>" for paragraph in paragraphs)
    css = (
        "body {font-family: sans-serif; font-size: 11pt;} "
        "h1 {font-size: 20pt;} h2 {font-size: 14pt;}"
    )
    story = pymupdf.Story(html="".join(parts), user_css=css)
    page_size = pymupdf.paper_rect("a5")
    frame = pymupdf.Rect(page_size.x0 + 50, page_size.y0 + 50, page_size.x1 - 50, page_size.y1 - 50)
    writer = pymupdf.DocumentWriter(str(out))
    more = True
    while more:
        device = writer.begin_page(page_size)
        more, _ = story.place(frame)
        story.draw(device)
        writer.end_page()
    writer.close()

    document = pymupdf.open(str(out))
    page_texts = [document[number].get_text() for number in range(document.page_count)]
    toc: list[list[object]] = [[1, SAMPLE_TITLE, 1]]
    for heading, _ in SECTIONS:
        number = next(n for n, text in enumerate(page_texts, start=1) if heading in text)
        toc.append([2, heading, number])
    document.set_toc(toc)
    document.set_metadata({"title": SAMPLE_TITLE, "author": "reader"})
    document.save(str(out) + ".tmp", garbage=3, deflate=True, no_new_id=True)
    document.close()
    Path(str(out) + ".tmp").replace(out)
