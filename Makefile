.PHONY: test lint bench

test:
	python -m pytest

lint:
	ruff check . && ruff format --check . && mypy

bench:
	python bench/ingest.py && python bench/verify.py
