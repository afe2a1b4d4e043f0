"""reader: an offline document reader whose answers can be checked."""

import sys

__version__ = "0.1.0"

# PyMuPDF 2 imports its optional layout analyser (pymupdf.layout, which loads
# onnxruntime and numpy: about half a second at every start) whenever it is
# installed, and it is installed with PyMuPDF. reader does not use it; marking
# it absent before PyMuPDF loads keeps every command's start quick.
sys.modules.setdefault("pymupdf.layout", None)  # type: ignore[arg-type]
