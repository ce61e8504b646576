"""The people matrix (#30): every dashboard URL of the URL conf × {not signed in, signed in without staff status,
staff} × the spaces it is asked about (open, vault, third-party) × GET and POST, checked against the roles the
README states, not against the policy's table.

Each view declares the permission it needs (`dashboard/access.person_may`, read here as `view.permission`); a
role gets the page when the README gives it that permission (and, for a vault space, also VAULT_READ). Not
signed in is always the login form; a refused role is 403, and nothing it asks changes a row or shows a
word of a vault entry (`mkvault` is in every kind of vault record). Staff get every page by GET (200 or a
redirect; the space's own marker where the page shows memories) and 405 for a method a view does not take;
their POSTs change what they ask for, so tests/test_audit_walk.py makes each one on a world of its own and
holds it to the same answer. A URL without a row in ROWS, or a view without a declaration, fails here the day
it is added, as a tool without a row fails the agent matrix.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.urls import reverse

from memoryhub.access.people import Perm
from tests.dashboard_walk import NATIVE, ROWS, VAULT_MARK, build, dashboard_routes, db_state, marker, routes

pytestmark = pytest.mark.django_db

# The roles as README.md's Security section states them: what each may do.
MAY = {"anonymous": set(), "signed_in": set(), "staff": set(Perm)}
REFUSED_ROLES = ("anonymous", "signed_in")
# Everything outside the dashboard a browser can reach: Django's own pages and the agents' API.
OUTSIDE = ("login/", "logout/", "admin/", "api/v1/", "i18n/")

DASHBOARD = dashboard_routes()
WALKED = sorted(set(DASHBOARD) & set(ROWS))  # the first test fails for any name in only one of them


def test_every_dashboard_url_has_a_row_and_every_row_a_url():
    assert set(DASHBOARD) - set(ROWS) == set(), "add the new view's row to tests/dashboard_walk.ROWS"
    assert set(ROWS) - set(DASHBOARD) == set(), "a row names a URL the dashboard no longer has"


def test_every_route_outside_the_dashboard_is_one_people_do_not_browse_memories_through():
    strays = [r.pattern for r in routes() if not r.name.startswith("dashboard:") and not r.pattern.startswith(OUTSIDE)]
    assert strays == [], "a new top-level view: put it in the dashboard's urls.py with a permission"


def test_every_dashboard_view_declares_the_permission_it_needs():
    undeclared = [name for name, route in DASHBOARD.items()
                  if not isinstance(getattr(route.callback, "permission", None), dict)]
    assert undeclared == [], "decorate these views with @person_may(Perm....)"


def test_no_role_may_decide_on_the_vault_without_reading_it():
    """The requests page shows the entries a request matched: deciding implies reading."""
    from memoryhub.access.people import GRANTS

    assert all(Perm.VAULT_READ in perms for perms in GRANTS.values() if Perm.VAULT_DECIDE in perms)


def expected(role: str, needed: Perm, space: str | None) -> str:
    if role == "anonymous":
        return "login"
    if needed not in MAY[role]:
        return "refused"
    if space == "vault" and Perm.VAULT_READ not in MAY[role]:
        return "hidden"
    return "ok"


def ask(client, world, name: str, space: str | None, method: str):
    """One request of the walk, as ROWS says to make it."""
    row = ROWS[name]
    url = reverse(f"dashboard:{name}", kwargs=row.args(world, space))
    query = row.query(world, space)
    if method == "GET":
        return client.get(url, query)
    return client.post(url + (f"?{urlencode(query)}" if query else ""), row.post(world, space))


def login(client, world, role: str) -> None:
    client.logout()
    if role != "anonymous":
        client.force_login(world["staff" if role == "staff" else "guest"])


def check(response, role: str, needed: Perm | None, space: str | None) -> str:
    """What is wrong with this answer to this role, or ""."""
    if needed is None:
        return "" if response.status_code == 405 else f"answered {response.status_code}, not 405"
    outcome, status = expected(role, needed, space), response.status_code
    if outcome == "login":
        ok = status == 302 and response["Location"].startswith("/login/?next=")
    elif outcome == "refused":
        ok = status == 403
    elif outcome == "hidden":
        ok = status == 404
    else:
        ok = status in (200, 302)
    return "" if ok else f"answered {status}, expected {outcome}"


def walk(client, world, roles, methods=("GET", "POST")):
    """Ask every URL as each role; the problems found, one line each (a 500 is one of them, not the end)."""
    client.raise_request_exception = False
    problems = []
    for role in roles:
        login(client, world, role)
        for name in WALKED:
            row, needs = ROWS[name], getattr(DASHBOARD[name].callback, "permission", {})
            for space in row.spaces:
                for method in methods:
                    response = ask(client, world, name, space, method)
                    where = f"{role} {method} {name} ({space})"
                    body = response.content.decode(errors="replace").casefold()
                    if method in row.methods and method not in needs:
                        found = [f"declares no permission (answered {response.status_code})"]
                    else:
                        found = [check(response, role, needs[method] if method in row.methods else None, space)]
                    if role != "staff" and VAULT_MARK in body:
                        found.append("showed vault text")
                    if (role == "staff" and method == "GET" and row.shows and space in NATIVE
                            and response.status_code == 200 and marker(space) not in body):
                        found.append("shows none of its space's memories")
                    problems += [f"{where}: {problem}" for problem in found if problem]
    return problems


def test_refused_roles_get_the_login_form_or_403_see_no_vault_text_and_change_nothing(client, tmp_path,
                                                                                      django_user_model):
    world = build(tmp_path, django_user_model)
    unchanged = db_state()
    problems = walk(client, world, REFUSED_ROLES)
    assert problems == [], "\n".join(problems)
    assert db_state() == unchanged, "a refused request changed something"


def test_staff_get_every_page_and_methods_a_view_does_not_take_are_405(client, tmp_path, django_user_model):
    """Staff POSTs change what they ask for: tests/test_audit_walk.py makes each on a world of its own."""
    world = build(tmp_path, django_user_model)
    problems = walk(client, world, ("staff",), methods=("GET",))
    login(client, world, "staff")
    for name in WALKED:
        if "POST" not in ROWS[name].methods:
            for space in ROWS[name].spaces:
                if ask(client, world, name, space, "POST").status_code != 405:
                    problems.append(f"staff POST {name} ({space}): not 405")
    assert problems == [], "\n".join(problems)
