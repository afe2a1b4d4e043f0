.PHONY: test lint bench structure

test:
	python -m pytest

lint:
	ruff check . && ruff format --check . && mypy

bench:
	python bench/ingest.py && python bench/verify.py

structure:
	python bench/structure.py
