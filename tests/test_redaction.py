"""Secrets become typed placeholders; near-misses stay untouched."""

import pytest

from memoryhub.core.redaction import redact


@pytest.mark.parametrize(
    "text, placeholder",
    [
        ("key sk-proj-4fT9aQ2mX8rL1vB7nC3eK6pW0sD5hJ", "[REDACTED:api_key]"),
        ("anthropic sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv", "[REDACTED:api_key]"),
        ("ghp_1234567890abcdefghijABCDEFGHIJ123456", "[REDACTED:github_token]"),
        ("gho_1234567890abcdefghijABCDEFGHIJ123456", "[REDACTED:github_token]"),
        ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "[REDACTED:github_token]"),
        ("aws AKIAIOSFODNN7EXAMPLE here", "[REDACTED:aws_access_key]"),
        ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----",
         "[REDACTED:private_key]"),
        ("api_key=8f7d6e5c4b3a", "api_key=[REDACTED:secret]"),
        ("token: abcdef123456", "token: [REDACTED:secret]"),
        ('secret = "s3cr3t-value"', "secret = [REDACTED:secret]"),
        ("PASSWORD=hunter2!", "PASSWORD=[REDACTED:secret]"),
        ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "Authorization: Bearer [REDACTED:bearer_token]"),
        ("ssh to 192.168.10.24 now", "ssh to [REDACTED:ipv4] now"),
    ],
)
def test_secret_is_replaced_by_a_typed_placeholder(text, placeholder):
    result = redact(text)
    assert placeholder in result.text
    assert result.count >= 1


@pytest.mark.parametrize(
    "text",
    [
        "the token economy is growing",
        "a password manager is a good idea",
        "release v1.2.3.4 is out",
        "upgrade to version 10.0.0.1 tomorrow",
        "sk-short",
        "call 300.1.2.3 an invalid address",
        "the secret ingredient is love",
        "ask-me-anything-about-skiing-and-more",
    ],
)
def test_near_misses_stay_untouched(text):
    result = redact(text)
    assert result.text == text and result.count == 0


def test_count_adds_up_over_several_secrets():
    result = redact("a 10.0.0.1 b 10.0.0.2 c sk-abcdefghijklmnopqrstuvwx")
    assert result.count == 3 and result.kinds == {"api_key": 1, "ipv4": 2}


def test_redaction_is_idempotent():
    once = redact("token: abcdef123456 and 10.0.0.1").text
    assert redact(once).text == once and redact(once).count == 0
