"""Management commands: issue_token, ensure_admin."""

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from memoryhub.agents.models import ApiToken, hash_token

pytestmark = pytest.mark.django_db


def test_issue_token_prints_only_the_token_on_its_last_line():
    out, err = StringIO(), StringIO()
    call_command("issue_token", "--name", "bot", "--origin", "qq", "--space", "default", stdout=out, stderr=err)
    raw = out.getvalue().strip().splitlines()[-1]
    token = ApiToken.objects.get(token_hash=hash_token(raw))
    assert token.name == "bot" and token.origin == "qq"
    assert [s.slug for s in token.spaces.all()] == ["default"]
    assert raw not in err.getvalue()


def test_issue_token_refuses_unknown_space():
    with pytest.raises(CommandError):
        call_command("issue_token", "--name", "bot", "--space", "ghost", stdout=StringIO(), stderr=StringIO())


def test_tokens_are_stored_hashed():
    out = StringIO()
    call_command("issue_token", "--name", "bot", stdout=out, stderr=StringIO())
    raw = out.getvalue().strip()
    token = ApiToken.objects.get()
    assert raw not in (token.token_hash, token.prefix) and token.token_hash == hash_token(raw)


def test_ensure_admin_creates_the_staff_user_once(monkeypatch):
    monkeypatch.delenv("MEMORYHUB_ADMIN_PASSWORD", raising=False)
    out = StringIO()
    call_command("ensure_admin", stdout=out)
    assert "password:" in out.getvalue()
    user = get_user_model().objects.get(username="admin")
    assert user.is_staff and user.is_superuser
    again = StringIO()
    call_command("ensure_admin", stdout=again)
    assert again.getvalue() == ""


def test_ensure_admin_uses_the_password_from_the_environment(monkeypatch):
    monkeypatch.setenv("MEMORYHUB_ADMIN_PASSWORD", "correct horse battery")
    out = StringIO()
    call_command("ensure_admin", stdout=out)
    assert "correct horse battery" not in out.getvalue()
    assert get_user_model().objects.get(username="admin").check_password("correct horse battery")
