"""Who is calling: the connection's own address, or the client a trusted proxy names in X-Forwarded-For.

The header is anyone's to write, so it counts only when the connection comes from a proxy that
settings.TRUSTED_PROXIES names (addresses or networks, `*` for any); otherwise a client could choose its
own address, and with it a fresh login-throttling bucket for every attempt.
"""

from __future__ import annotations

import ipaddress

from django.conf import settings


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None


def trusted(address: str, proxies: list[str] | None = None) -> bool:
    proxies = settings.TRUSTED_PROXIES if proxies is None else proxies
    if "*" in proxies:
        return True
    ip = _address(address)
    if ip is None:
        return False
    for entry in proxies:
        try:
            if ip in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False


def client_ip(request) -> str:
    """The peer address, unless it is a trusted proxy: then the right-most forwarded address that is not one."""
    peer = request.META.get("REMOTE_ADDR", "") or ""
    if not trusted(peer):
        return peer
    hops = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
    for hop in reversed(hops):
        if _address(hop) is None:
            return peer  # a hop that is no address: believe nothing the header says
        if not trusted(hop):
            return hop
    return hops[0] if hops else peer
