"""``python -m reader.sample``: rebuild the shipped sample PDF from its text."""

from pathlib import Path

from reader.sample import SAMPLE_FILE, build_sample

if __name__ == "__main__":
    target = Path(__file__).with_name(SAMPLE_FILE)
    build_sample(target)
    print(f"wrote {target}")
