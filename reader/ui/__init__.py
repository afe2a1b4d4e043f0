"""The desktop reader: the only package that imports Qt (PySide6)."""
