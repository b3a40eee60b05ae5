"""The HTTP service's settings, from ``TOOLRET_SERVE_*`` (the retrieval settings stay in
``toolret._settings``: the service's client reads them as any client does).

Tokens are a JSON object from a bearer token to the catalog names it may use, given inline
(``TOOLRET_SERVE_TOKENS='{"tok-a": ["crm"], "tok-ops": ["*"]}'``) or as the path of a file
holding that object (``TOOLRET_SERVE_TOKENS=@/run/secrets/toolret-tokens.json``). A token may be
written as ``sha256:<hex digest>`` so the file never holds it in the clear. ``*`` allows every
catalog. A token may also carry the tools its callers may see: ``{"tok-a": {"catalogs": ["crm"],
"allowed": ["find_records", "github__*"]}}``; a request's own ``allowed`` narrows that list,
never widens it. No tokens at all means no authentication, and the service then listens on a
loopback address only (``toolret.service._runner``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from toolret.errors import ConfigurationError

__all__ = ["DEFAULT_MAX_BODY_BYTES", "ServiceSettings", "TokenScope", "read_tokens"]

DEFAULT_MAX_BODY_BYTES = 1_000_000
"""The largest request body accepted (1 MB): a 500-tool MCP fleet's listings fit in about half."""


class TokenScope(BaseModel):
    """What one token may use: ``catalogs`` by name (``*``: all) and, when given, only the
    tools ``allowed`` names (tool names or ``server__*`` patterns) in them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    catalogs: tuple[str, ...]
    allowed: tuple[str, ...] | None = None


class ServiceSettings(BaseSettings):
    """``toolret serve``'s own settings; docs/configuration.md lists them all."""

    model_config = SettingsConfigDict(env_prefix="TOOLRET_SERVE_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = Field(8080, ge=0, le=65535)
    tokens: Annotated[dict[str, tuple[str, ...] | TokenScope], NoDecode] = Field(
        default_factory=dict
    )
    """Bearer token → the catalog names it may use (``*``: all), or a ``TokenScope``."""
    max_body_bytes: int = Field(DEFAULT_MAX_BODY_BYTES, ge=1024)
    recheck_seconds: float = Field(1.0, ge=0)
    """How long a process serves a catalog it built before it reads the stored hash again: a
    catalog replaced through another process is served everywhere within this."""
    drain_seconds: float = Field(30.0, ge=0)
    """On a graceful stop, how long to wait for queued feedback and reindex requests."""
    console: bool = True
    """Serve the operator's console at ``/console`` (``toolret.console``): the same tokens as
    the API; ``TOOLRET_SERVE_CONSOLE=0`` leaves it out."""
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    """What ``toolret serve`` writes to stderr from toolret's loggers (an outage, the return to
    narrowing, inline indexing); other libraries' lines only from ``warning`` up."""

    def __init__(self, **values: Any) -> None:
        """Read the environment (``values`` override it); a bad value raises
        ``ConfigurationError`` naming the variable."""
        try:
            super().__init__(**values)
        except ValidationError as error:
            problems = "; ".join(
                f"TOOLRET_SERVE_{str(problem['loc'][0]).upper()}: {problem['msg']}"
                for problem in error.errors()
            )
            raise ConfigurationError(f"invalid setting: {problems}") from error

    @field_validator("tokens", mode="before")
    @classmethod
    def _read_tokens(cls, value: object) -> object:
        return read_tokens(value) if isinstance(value, str) else value


_SHAPE = (
    'tokens must be a JSON object, token → [catalog, ...] or {"catalogs": [...], '
    '"allowed": [tool or server__*, ...]}'
)


def read_tokens(value: str) -> dict[str, tuple[str, ...] | TokenScope]:
    """Tokens from inline JSON or ``@path`` (a JSON file); ``ValueError`` saying what is wrong."""
    text = value.strip()
    if not text:
        return {}
    if text.startswith("@"):
        path = Path(text[1:]).expanduser()
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise ValueError(f"cannot read the tokens file {path}: {error}") from error
    try:
        data = json.loads(text)
    except ValueError as error:
        raise ValueError(f"{_SHAPE}: {error}") from error
    if not isinstance(data, dict):
        raise ValueError(_SHAPE)
    tokens: dict[str, tuple[str, ...] | TokenScope] = {}
    for token, given in data.items():
        if isinstance(given, dict):
            try:
                scope = TokenScope.model_validate(given)
            except ValidationError as error:
                raise ValueError(f"{_SHAPE}: {error.errors()[0]['msg']}") from error
            catalogs: object = list(scope.catalogs)
        else:
            scope, catalogs = None, given
        if not token or not isinstance(catalogs, list):
            raise ValueError("each token must map to a list of catalog names")
        if not all(isinstance(name, str) and name for name in catalogs):
            raise ValueError("catalog names must be non-empty strings")
        tokens[token] = scope or tuple(catalogs)
    return tokens
