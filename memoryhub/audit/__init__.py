"""Who did what, when: one row per approval, revocation, read, space or settings change (`record()`)."""
