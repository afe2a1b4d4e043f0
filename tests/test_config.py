"""The settings record: one set of defaults, and a hand-edited file read safely."""

import json

from reader.config import DEFAULTS, Settings, load_settings, save_settings, settings_path
from reader.models.server_client import ServerTimeouts


def test_without_a_file_the_settings_are_the_defaults():
    assert load_settings() == Settings() == DEFAULTS
    assert DEFAULTS.mode == "auto" and DEFAULTS.context_size == 4096 and DEFAULTS.model is None


def test_settings_saved_are_the_settings_loaded():
    chosen = Settings(model="qwen.gguf", threads=3, server_answer_timeout=90.0, ocr_languages="deu")
    save_settings(chosen)
    assert load_settings() == chosen
    assert json.loads(settings_path().read_text(encoding="utf-8"))["threads"] == 3


def test_a_hand_edited_file_keeps_each_default_it_cannot_use():
    settings_path().write_text(
        json.dumps(
            {
                "threads": "four",
                "context_size": -1,
                "server_connect_timeout": float("nan"),
                "server_first_token_timeout": True,
                "mode": 7,
                "model": "",
                "server_url": "http://127.0.0.1:8080",
                "unknown": "kept out",
            }
        ),
        encoding="utf-8",
    )
    assert load_settings() == Settings(server_url="http://127.0.0.1:8080")


def test_a_damaged_or_foreign_file_counts_as_empty():
    for content in ("{not json", "[1, 2]", '"text"'):
        settings_path().write_text(content, encoding="utf-8")
        assert load_settings() == Settings()


def test_the_server_waits_default_to_the_settings_defaults():
    waits = ServerTimeouts()
    assert (waits.connect, waits.first_token, waits.between_tokens, waits.answer) == (
        DEFAULTS.server_connect_timeout,
        DEFAULTS.server_first_token_timeout,
        DEFAULTS.server_between_tokens_timeout,
        DEFAULTS.server_answer_timeout,
    )
