"""Vault spaces: agents may write but not read; a person approves what one session may read (requests, grants).

It hears when agent sessions end through memoryhub.agents.sessions.session_ended, so a grant dies with its
session without anything below importing the vault.
"""
