"""Bearer tokens and the catalogs each may use.

A request names one catalog; its token must allow that name. The check runs before the catalog
is looked up, and a refusal says the same whether the catalog exists or not, so a token learns
nothing about another workspace's catalogs. Tokens are compared by their SHA-256 digests: the
configuration may hold digests only (``sha256:<hex>``), and a look-up by digest takes the same
time whichever token is tried.

A token may also name the tools its callers may see (``allowed``, ``TokenScope``): every
catalog it reaches is cut to them (``Catalog.only``) before anything is ranked, and a request's
own ``allowed`` cuts that cut again, so a request can narrow a token's list and never widen it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolret._catalog import allowed_patterns
from toolret.errors import AllowedToolsError, ConfigurationError
from toolret.service._http import ApiError
from toolret.service._settings import TokenScope

if TYPE_CHECKING:
    from toolret._catalog import Catalog

__all__ = ["ALL_CATALOGS", "Grant", "TokenTable"]

ALL_CATALOGS = "*"
_DIGEST_PREFIX = "sha256:"


@dataclass(frozen=True)
class Grant:
    """What one request may touch: ``catalogs`` by name, or every catalog (``everything``);
    in them, only the tools ``allowed`` names (None: every tool)."""

    catalogs: frozenset[str]
    everything: bool = False
    allowed: tuple[str, ...] | None = None

    def cut(self, catalog: Catalog, requested: Iterable[str] | None = None) -> Catalog:
        """``catalog`` cut to this grant's tools, then to the request's (``requested``): a 422
        naming ``allowed`` for an entry that is neither a name nor a pattern."""
        try:
            return catalog.only(self.allowed).only(requested)
        except AllowedToolsError as error:
            raise ApiError(422, "invalid_request", str(error), field="allowed") from error

    def allows(self, catalog: str) -> bool:
        """Whether this grant covers ``catalog``."""
        return self.everything or catalog in self.catalogs

    def check(self, catalog: str) -> None:
        """Raise a 403 that names neither the catalog's existence nor its owner."""
        if not self.allows(catalog):
            raise ApiError(
                403,
                "forbidden",
                "this token may not use that catalog",
                field="catalog",
            )


OPEN = Grant(frozenset(), everything=True)
"""The grant of every request when no token is configured (the service is on loopback only)."""


class TokenTable:
    """Tokens from configuration (``ServiceSettings.tokens``), looked up by digest."""

    def __init__(self, tokens: Mapping[str, Sequence[str] | TokenScope]) -> None:
        self._grants: dict[str, Grant] = {}
        for token, given in tokens.items():
            scope = given if isinstance(given, TokenScope) else TokenScope(catalogs=tuple(given))
            names = frozenset(scope.catalogs)
            allowed = None
            if scope.allowed is not None:
                try:
                    allowed = tuple(allowed_patterns(scope.allowed))
                except AllowedToolsError as error:
                    raise ConfigurationError(f"TOOLRET_SERVE_TOKENS: {error}") from error
            grant = Grant(names - {ALL_CATALOGS}, ALL_CATALOGS in names, allowed)
            self._grants[_digest_of_configured(token)] = grant

    @property
    def enabled(self) -> bool:
        """False when no token is configured: every request is let in."""
        return bool(self._grants)

    def __len__(self) -> int:
        return len(self._grants)

    def grant(self, authorization: str | None) -> Grant:
        """The grant of an ``Authorization`` header value; 401 when it is missing or unknown."""
        if not self._grants:
            return OPEN
        scheme, _, token = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError(
                401,
                "unauthorized",
                "send the header Authorization: Bearer <token>",
                headers={"WWW-Authenticate": "Bearer"},
            )
        grant = self._grants.get(hashlib.sha256(token.strip().encode()).hexdigest())
        if grant is None:
            raise ApiError(
                401,
                "invalid_token",
                "the bearer token is not known to this service",
                headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
            )
        return grant


def _digest_of_configured(token: str) -> str:
    if token.startswith(_DIGEST_PREFIX):
        digest = token[len(_DIGEST_PREFIX) :].strip().lower()
        if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise ConfigurationError(
                "TOOLRET_SERVE_TOKENS: a sha256: token must be followed by 64 hexadecimal digits"
            )
        return digest
    return hashlib.sha256(token.encode()).hexdigest()
