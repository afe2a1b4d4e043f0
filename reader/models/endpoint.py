"""Where a model server is, from the URL the user gave, and how its untrusted
text is shown in a message (``shown``: one short line)."""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass

from reader.errors import ModelError
from reader.text.escaping import one_line

MAX_SHOWN_CHARS = 200


def shown(text: str, limit: int = MAX_SHOWN_CHARS) -> str:
    """Untrusted server text made safe to show in a message: one short line."""
    return one_line(text, limit)


@dataclass(frozen=True)
class Endpoint:
    """Where to connect, from a server URL the user gave."""

    scheme: str
    host: str
    port: int
    path: str

    @classmethod
    def parse(cls, url: str) -> Endpoint:
        try:
            parts = urllib.parse.urlsplit(url)
            port = parts.port
        except ValueError as error:
            raise ModelError(
                f"The server URL {shown(url)} is not valid ({error}); "
                "write it like http://gpu-box:8080."
            ) from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ModelError(
                f"The server URL {shown(url)} is not an http:// or https:// address; "
                "write it like http://gpu-box:8080."
            )
        default_port = 443 if parts.scheme == "https" else 80
        return cls(parts.scheme, parts.hostname, port or default_port, parts.path.rstrip("/"))

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = self.port == (443 if self.scheme == "https" else 80)
        return host if default else f"{host}:{self.port}"
