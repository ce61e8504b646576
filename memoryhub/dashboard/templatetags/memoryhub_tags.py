"""Small template helpers shared by dashboard pages."""

from __future__ import annotations

import zlib

from django import template

register = template.Library()


@register.filter
def tag_colour(name: str) -> str:
    """A stable colour for a free tag: the same name always gets the same hue (crc32, not the salted hash())."""
    hue = zlib.crc32(str(name).strip().lower().encode()) % 360
    return f"hsl({hue} 60% 42%)"
