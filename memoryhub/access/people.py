"""What a person signed in to the dashboard may do: the people's half of the policy (agents' is policy.py).

A `Person` is a Django user as the dashboard sees it, as a `Call` is a token as the API sees it. The account
gives the role, the role holds permissions (GRANTS, the one table), every dashboard view names the one
permission it needs (dashboard/access.person_may) and every space page asks `may_open`. The roles, as the
README's Security section states them:

- not signed in: nothing; every page sends the browser to the login form.
- signed in without staff status: nothing either. Every memory in a space is the owner's, "open" only
  means agents may read it, so there is no page such an account could be shown safely; the login form
  refuses it, and a session it still holds (staff status taken away) is answered 403 on every page.
- staff: everything, the vault included. Staff status is given in the Django admin (Users), audited.

A new role is a row of GRANTS: the people matrix (tests/test_people_matrix.py) then holds every page to it,
and a vault space's pages stay closed to it unless it holds VAULT_READ.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import models
from django.utils.translation import gettext_lazy as _

from memoryhub.spaces.models import MemorySpace, Workspace


class Perm(models.TextChoices):
    """What one dashboard view does, named once on the view; the labels are what the refusal page says."""

    MEMORY_READ = "memory.read", _("read the memories of a space: entries, facts, persona, topics, graph, "
                                   "charts, activity, recall preview, search")
    MEMORY_CHANGE = "memory.change", _("write, edit, link or forget memories, facts, the persona and notebooks")
    VAULT_READ = "vault.read", _("read vault spaces")
    VAULT_DECIDE = "vault.decide", _("approve, deny or revoke agents' vault requests")
    SPACES = "spaces.manage", _("create, edit, switch off or delete spaces and change their settings")
    MAINTAIN = "maintenance", _("consolidate, clean up, compact, embed and re-tag spaces; run and cancel jobs")
    EXPORT = "export", _("download packs, notebooks and MEMORY.md files")
    IMPORT = "import", _("import history, packs and notebooks, from an upload or a path on the server")
    CONFIGURE = "hub.configure", _("provider services, API tokens, workspaces' MEMORY.md export")
    OBSERVE = "hub.observe", _("jobs, remote writes and the audit log")


class Role(models.TextChoices):
    ANONYMOUS = "anonymous", _("not signed in")
    SIGNED_IN = "signed_in", _("signed in without staff status")
    STAFF = "staff", _("staff")


GRANTS: dict[Role, frozenset[Perm]] = {
    Role.ANONYMOUS: frozenset(),
    Role.SIGNED_IN: frozenset(),
    Role.STAFF: frozenset(Perm),
}


@dataclass(frozen=True)
class Person:
    """One signed-in (or anonymous) user; `actor` is the name the audit log and the op log give them."""

    user: object

    @property
    def role(self) -> Role:
        if not getattr(self.user, "is_authenticated", False) or not self.user.is_active:
            return Role.ANONYMOUS
        return Role.STAFF if self.user.is_staff else Role.SIGNED_IN

    @property
    def actor(self) -> str:
        return self.user.get_username() if self.role != Role.ANONYMOUS else ""

    def may(self, perm: Perm) -> bool:
        return perm in GRANTS[self.role]


def person(request) -> Person:
    return Person(request.user)


def may_sign_in(user) -> bool:
    """The login form lets in only an account whose role may do something."""
    return bool(GRANTS[Person(user).role])


def may_open(who: Person, space: MemorySpace) -> bool:
    """A space's pages: its memories need MEMORY_READ, a vault's need VAULT_READ as well (it is as if a vault
    space did not exist for anyone without it, as for agents)."""
    return who.may(Perm.MEMORY_READ) and (not space.is_vault or who.may(Perm.VAULT_READ))


def may_export(who: Person, workspace: Workspace) -> bool:
    """A workspace's MEMORY.md carries its vault spaces' memories once a person put them in (export_vault)."""
    return who.may(Perm.EXPORT) and (not workspace.export_vault or who.may(Perm.VAULT_READ))
