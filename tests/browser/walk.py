"""Every dashboard page, for the browser walks: the URL list comes from the URL resolver (a page added later is
walked too), the arguments from the demo hub (tests/browser/demo.py), which has data on every page.

A page whose URL needs an argument the demo has no sample for fails the walk until one is added there.
"""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, get_resolver, reverse

SKIPPED_PREFIXES = ("admin/", "api/", "i18n/", "mcp")


def dashboard_routes(patterns=None, prefix: str = "", namespace: str = "") -> list[tuple[str, list[str], dict]]:
    """(qualified URL name, argument names, default kwargs) of every named page outside admin, the API and i18n."""
    routes = []
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(entry.pattern)
        if route.startswith(SKIPPED_PREFIXES):
            continue
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            routes += dashboard_routes(entry.url_patterns, route, inner)
        elif isinstance(entry, URLPattern) and entry.name:
            routes.append((namespace + entry.name, sorted(entry.pattern.converters), entry.default_args))
    return routes


def pages(client, samples: dict) -> list[str]:
    """The URL of every page that answers GET with HTML; POST-only actions, JSON and downloads are left out."""
    urls, missing = [], []
    for name, args, defaults in dashboard_routes():
        kwargs = {**{a: samples[a] for a in args if a in samples}, **samples["by_name"].get(name, {})}
        if set(args) - set(kwargs) - set(defaults):
            missing.append(f"{name} needs {sorted(set(args) - set(kwargs))}")
            continue
        url = reverse(name, kwargs={k: v for k, v in kwargs.items() if k in args}) + samples["queries"].get(name, "")
        response = client.get(url)
        if response.status_code == 405 or "attachment" in response.get("Content-Disposition", ""):
            continue
        if response.status_code >= 400:
            missing.append(f"{name} answered {response.status_code} at {url}")
            continue
        if "text/html" in response.get("Content-Type", ""):
            urls.append(url)
    assert not missing, f"add sample arguments to tests/browser/demo.py (every_page): {missing}"
    return urls + samples["extra_pages"]
