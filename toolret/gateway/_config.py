"""The gateway's configuration: the ``mcpServers`` JSON that MCP clients already use.

    {
      "mcpServers": {
        "github": {"command": "github-mcp-server", "args": ["stdio"], "env": {"GITHUB_TOKEN": "…"}},
        "linear": {"url": "https://mcp.linear.app/mcp", "headers": {"Authorization": "Bearer …"}}
      },
      "core": ["github__get_me"],
      "examples": "fleet.examples.toml",
      "keywords": {"linear__create_issue": ["ticket", "bug report"]},
      "allowed": ["github__*", "linear__create_issue"],
      "readyTimeout": 30,
      "passEnv": ["NODE_EXTRA_CA_CERTS", "AWS_*"]
    }

A server with ``command`` is started as a child process and spoken to over stdio; one with
``url`` over streamable HTTP (``type`` may say ``stdio``, ``http`` or ``streamable-http``; the
older SSE transport is refused). VS Code's ``servers`` key is read like ``mcpServers``.
``core`` names the upstream tools always exposed, as the catalog names them (``server__tool``).
``examples`` gives example requests per tool (``server__tool``), inline or as the path of a
side file (TOML or JSON, relative to the configuration file): what ``toolret examples suggest``
wrote and a person kept. ``keywords`` maps tools to extra search words, inline. Both take
the shapes ``catalog_from_mcp`` takes. ``allowed`` (tool names or ``server__*`` patterns, as
``Catalog.only`` takes) is what the gateway's clients may see and call: find_tools ranks only
among those tools, from the whole fleet's indexed corpus. ``readyTimeout`` bounds, in
seconds, how long the first ``tools/list``, ``find_tools`` or ``call_tool`` waits for every
server's first listing. ``passEnv`` names variables of the gateway's own environment
(names, or ``fnmatch`` globs such as ``AWS_*``) that every stdio server gets beside the MCP
SDK's few (``HOME``, ``LOGNAME``, ``PATH``, ``SHELL``, ``TERM``, ``USER``) and its own ``env``;
a server's entry may have its own ``passEnv`` too.

Mistakes fail at start, naming what is wrong: a key this file does not define (at the top or in
a server's entry), and a ``core``, ``examples`` or ``keywords`` name that is no configured
server's (``GatewayConfig.server_of``). A name of a configured server that its first listing
does not have is the gateway's to refuse, once that server has listed
(``Gateway.unmatched``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolret.errors import ConfigurationError

__all__ = [
    "READY_TIMEOUT",
    "GatewayConfig",
    "UpstreamConfig",
    "check_names",
    "parse_config",
    "read_config",
]

_HTTP_TYPES = ("http", "streamable-http", "streamableHttp", "streamable_http")
READY_TIMEOUT = 30.0
"""Seconds the first requests wait for every upstream's first listing, by default."""
_TOP_KEYS = (
    "mcpServers",
    "servers",
    "core",
    "examples",
    "keywords",
    "allowed",
    "readyTimeout",
    "passEnv",
)
_SERVER_KEYS = ("type", "command", "args", "env", "cwd", "url", "headers", "passEnv")


@dataclass(frozen=True)
class UpstreamConfig:
    """One upstream MCP server: a command (stdio) or a URL (streamable HTTP)."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    pass_env: tuple[str, ...] = ()
    """Variables of the gateway's environment a stdio server also gets (names or globs)."""

    @property
    def transport(self) -> str:
        """``stdio`` or ``http``."""
        return "stdio" if self.command is not None else "http"

    def environment(self) -> dict[str, str]:
        """What its process gets beside the MCP SDK's default: the gateway's variables that
        ``pass_env`` names, then its ``env``."""
        from fnmatch import fnmatchcase

        passed = {
            name: value
            for name, value in os.environ.items()
            if any(fnmatchcase(name, pattern) for pattern in self.pass_env)
        }
        return passed | dict(self.env)

    def __repr__(self) -> str:  # env and headers hold secrets
        where = self.command if self.command is not None else self.url
        return f"UpstreamConfig({self.name!r}, {self.transport}, {where!r})"


@dataclass(frozen=True)
class GatewayConfig:
    """Every upstream, and the tools always exposed."""

    upstreams: tuple[UpstreamConfig, ...]
    core: tuple[str, ...] = ()
    examples: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Example requests by tool (``server__tool``)."""
    keywords: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Extra search words by tool (``server__tool``)."""
    ready_timeout: float = READY_TIMEOUT
    """Seconds the first requests wait for every upstream's first listing."""
    allowed: tuple[str, ...] | None = None
    """The tools clients may see and call (names or ``server__*`` patterns); None: all."""

    def server_of(self, name: str) -> str | None:
        """The configured server a ``server__tool`` name belongs to (the longest that fits)."""
        from toolret.adapters._mcp import SEPARATOR, mcp_tool_name

        fits = [
            u.name
            for u in self.upstreams
            if name.startswith(f"{u.name}{SEPARATOR}") or name.startswith(mcp_tool_name(u.name, ""))
        ]
        return max(fits, key=len, default=None)

    def could_name(self, prefix: str) -> bool:
        """Whether a tool of some configured server could start with ``prefix``."""
        from toolret.adapters._mcp import mcp_tool_name

        return self.server_of(prefix) is not None or any(
            mcp_tool_name(u.name, "").startswith(prefix) for u in self.upstreams
        )

    def named_tools(self) -> dict[str, str]:
        """Every tool name ``core``, ``examples`` and ``keywords`` use, and which of them."""
        named: dict[str, str] = {}
        for what, names in (
            ("keywords", self.keywords),
            ("examples", self.examples),
            ("core", self.core),
        ):
            named.update({name: what for name in names})
        return named


def read_config(path: str | Path) -> GatewayConfig:
    """Read a JSON file; ``ConfigurationError`` naming the file and what is wrong."""
    file = Path(path)
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ConfigurationError(f"cannot read the gateway's mcpServers {file}: {error}") from error
    try:
        return parse_config(data, base=file.parent)
    except ConfigurationError as error:
        raise ConfigurationError(f"{file}: {error}") from error


def parse_config(data: Any, *, base: Path | None = None) -> GatewayConfig:
    """The configuration in ``data`` (the parsed JSON); a relative examples path is read from
    ``base`` (the configuration file's folder)."""
    if not isinstance(data, Mapping):
        raise ConfigurationError('expected a JSON object with "mcpServers"')
    _known_keys(data, _TOP_KEYS, "the configuration")
    servers = data.get("mcpServers", data.get("servers"))
    if not isinstance(servers, Mapping) or not servers:
        raise ConfigurationError('"mcpServers" must be an object naming at least one server')
    passed = tuple(_strings(data.get("passEnv", []), '"passEnv"'))
    upstreams = tuple(_upstream(str(name), entry, passed) for name, entry in servers.items())
    core = data.get("core", [])
    if not isinstance(core, list) or not all(isinstance(name, str) for name in core):
        raise ConfigurationError('"core" must be a list of tool names (server__tool)')
    config = GatewayConfig(
        upstreams,
        tuple(core),
        _examples(data.get("examples"), base),
        _keywords(data.get("keywords")),
        _ready_timeout(data.get("readyTimeout", READY_TIMEOUT)),
        _allowed(data.get("allowed")),
    )
    check_names(config)
    return config


def check_names(config: GatewayConfig) -> None:
    """``ConfigurationError`` naming a ``core``, ``examples`` or ``keywords`` tool that no
    configured server could list (its name does not start with ``server__``)."""
    servers = ", ".join(repr(u.name) for u in config.upstreams)
    for pattern in config.allowed or ():
        if pattern != "*" and not config.could_name(pattern.removesuffix("*")):
            raise ConfigurationError(
                f'"allowed" names {pattern!r}, which no configured server\'s tool could match: '
                f"name tools server__tool or server__*, with server one of {servers}"
            )
    for name, what in config.named_tools().items():
        if config.server_of(name) is None:
            raise ConfigurationError(
                f'"{what}" names {name!r}, which is no configured server\'s tool: name it '
                f"server__tool, with server one of {servers}"
            )


def _allowed(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    from toolret._catalog import allowed_patterns
    from toolret.errors import AllowedToolsError

    try:
        return tuple(allowed_patterns(value))
    except AllowedToolsError as error:
        raise ConfigurationError(f'"allowed": {error}') from error


def _known_keys(entry: Mapping[str, Any], known: tuple[str, ...], where: str) -> None:
    for key in entry:
        if key not in known:
            raise ConfigurationError(
                f"{where} has a key {key!r} the gateway does not know (it knows {', '.join(known)})"
            )


def _keywords(value: Any) -> dict[str, tuple[str, ...]]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(
        isinstance(words, list) and all(isinstance(w, str) for w in words)
        for words in value.values()
    ):
        raise ConfigurationError('"keywords" must map tool names (server__tool) to lists of words')
    return {str(name): tuple(words) for name, words in value.items()}


def _ready_timeout(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ConfigurationError('"readyTimeout" must be a number of seconds above 0')
    return float(value)


def _examples(value: Any, base: Path | None) -> dict[str, tuple[str, ...]]:
    if value is None:
        return {}
    if isinstance(value, str):
        from toolret.adapters._source import load_examples
        from toolret.errors import CatalogSourceError

        path = Path(value) if base is None or Path(value).is_absolute() else base / value
        try:
            return load_examples(path)
        except CatalogSourceError as error:
            raise ConfigurationError(f'"examples": {error}') from error
    if not isinstance(value, Mapping) or not all(
        isinstance(texts, list) and all(isinstance(t, str) for t in texts)
        for texts in value.values()
    ):
        raise ConfigurationError(
            '"examples" must map tool names (server__tool) to lists of requests, or name a file'
        )
    return {str(name): tuple(texts) for name, texts in value.items()}


def _upstream(name: str, entry: Any, pass_env: tuple[str, ...]) -> UpstreamConfig:
    where = f"mcpServers.{name}"
    if not name:
        raise ConfigurationError("a server in mcpServers has an empty name")
    if not isinstance(entry, Mapping):
        raise ConfigurationError(f"{where} must be an object with command or url")
    _known_keys(entry, _SERVER_KEYS, where)
    kind = entry.get("type")
    if kind == "sse":
        raise ConfigurationError(
            f"{where}: the SSE transport is not supported; use the server's streamable HTTP "
            "endpoint (type http)"
        )
    command, url = entry.get("command"), entry.get("url")
    if (command is None) == (url is None):
        raise ConfigurationError(f"{where} needs exactly one of command (stdio) and url (http)")
    if command is not None:
        if not isinstance(command, str) or not command or kind not in (None, "stdio"):
            raise ConfigurationError(f"{where}.command must be a string (type stdio)")
        return UpstreamConfig(
            name,
            command=command,
            args=tuple(_strings(entry.get("args", []), f"{where}.args")),
            env=_string_map(entry.get("env", {}), f"{where}.env"),
            cwd=_optional_string(entry.get("cwd"), f"{where}.cwd"),
            pass_env=(*pass_env, *_strings(entry.get("passEnv", []), f"{where}.passEnv")),
        )
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ConfigurationError(f"{where}.url must be an http:// or https:// URL")
    if kind not in (None, *_HTTP_TYPES):
        raise ConfigurationError(f"{where}.type {kind!r} is not stdio or http")
    return UpstreamConfig(
        name, url=url, headers=_string_map(entry.get("headers", {}), f"{where}.headers")
    )


def _strings(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigurationError(f"{where} must be a list of strings")
    return value


def _string_map(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        raise ConfigurationError(f"{where} must map names to strings")
    return {str(key): item for key, item in value.items()}


def _optional_string(value: Any, where: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ConfigurationError(f"{where} must be a string")
    return value
