"""HTTP access to the MCP server: the bearer-token check and whether a bind address is loopback
(`kgmem.mcp`)."""

from __future__ import annotations

import hmac
import ipaddress
import socket

from mcp.server.auth.provider import AccessToken

from kgmem.errors import ConfigError

__all__ = ["StaticTokenVerifier", "is_loopback"]


class StaticTokenVerifier:
    """The SDK's ``TokenVerifier`` protocol for one shared bearer token (``KGMEM_MCP_TOKEN``),
    compared in constant time."""

    def __init__(self, token: str) -> None:
        if not token:
            raise ConfigError("KGMEM_MCP_TOKEN must not be empty")
        self._token = token.encode("utf-8")

    async def verify_token(self, token: str) -> AccessToken | None:
        if hmac.compare_digest(token.encode("utf-8"), self._token):
            return AccessToken(token=token, client_id="kgmem-mcp", scopes=[])
        return None


def is_loopback(host: str) -> bool:
    """True when ``host`` (an address or a name) resolves only to loopback addresses
    (127.0.0.0/8, ::1). ``0.0.0.0`` / ``::`` (every interface) are not loopback."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(i[4][0]).is_loopback for i in infos)
