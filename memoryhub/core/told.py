"""A refusal's words kept apart from its values, so each reader hears it in their own language: an agent reads
the English (`str()`, an ApiError's message), a person's page says it in the reader's language (`said()`).

Every layer that refuses text a person may have typed (core/jsonin, the operations' input models) raises
`refused(told, field)`; operations/refusals.said reads the words back for a page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext

from memoryhub.core.errors import ApiError, bad


@dataclass(frozen=True)
class Told:
    """A refusal's words before they are filled in: the template (marked for translation) and its values."""

    words: str
    values: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.words.format_map(self.values)

    def said(self, field_label: Any = None) -> str:
        """In the active language, the field named by its label on the page when one is given."""
        values = self.values if field_label is None else {**self.values, "field": field_label}
        return gettext(self.words).format_map(values)


def refused(told: Told, field_name: str | None = None) -> ApiError:
    """The bad_request an agent reads in English, carrying its words for a page that says them otherwise."""
    error = bad(str(told), field_name)
    error.told = told
    return error
