"""reader: an offline document reader whose answers can be checked."""

__version__ = "0.1.0"
