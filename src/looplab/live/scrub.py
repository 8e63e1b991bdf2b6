"""What of a request's URL a recording may keep: the API's own path and query, never what
the client's base URL carries (a key can sit in its user and password, its path or its
query: `http://host/?token=…`, `https://proxy/key-…/`)."""

from __future__ import annotations

from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

SAFE_QUERY = frozenset({"beta"})
"""Query parameters the SDK itself sends (`?beta=true`): the only ones kept."""


def base_path(base_url: str) -> str:
    """The path of the client's base URL, without its trailing slash ("" for none)."""
    try:
        return urlsplit(base_url).path.rstrip("/")
    except ValueError:
        return ""


def api_path(path: str, query: str, base_url: str) -> tuple[str, str]:
    """The request's path after the base URL's own path, and only the query parameters
    the API defines (`SAFE_QUERY`): what the recording keeps."""
    prefix = base_path(base_url)
    if prefix and (path == prefix or path.startswith(prefix + "/")):
        path = path[len(prefix):] or "/"
    kept = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k in SAFE_QUERY]
    return path, urlencode(kept)


def url_secrets(base_url: str) -> tuple[str, ...]:
    """What in the base URL may be a credential, to be redacted wherever it shows (a proxy's
    error page can echo the URL): its user and password, its query's values, its path."""
    try:
        parts = urlsplit(base_url)
        found = [parts.username, parts.password, *(v for _k, v in parse_qsl(parts.query)),
                 base_path(base_url).lstrip("/")]
    except ValueError:
        return ()
    # the SDK ends a base URL with "/", so the last value of a query ends with it too
    raw = [t for s in found if s for t in (s, s.rstrip("/")) if len(t) >= 3]
    return tuple(sorted({*raw, *(unquote(s) for s in raw)}, key=len, reverse=True))
