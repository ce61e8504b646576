"""Reading API answers in tests: a tool's result or a refusal's error object, asserting the status first."""

from __future__ import annotations


def result(response, status: int = 200) -> dict:
    """The answer's `result` (a tool call), or the whole body (an endpoint such as /spaces)."""
    assert response.status_code == status, response.content
    body = response.json()
    return body.get("result", body)


def refused(response, status: int = 403) -> dict:
    """The `error` object of a refused call."""
    assert response.status_code == status, response.content
    return response.json()["error"]
