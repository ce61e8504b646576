"""Make sure the staff user exists; on first start print its generated password once."""

import os
import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from memoryhub.spaces import secrets as provider_secrets
from memoryhub.spaces.workspaces import default_space


class Command(BaseCommand):
    help = "Create the admin user (MEMORYHUB_ADMIN_USER, password MEMORYHUB_ADMIN_PASSWORD or generated)."

    def handle(self, *args, **options):
        if provider_secrets.ensure_private():
            self.stdout.write("Fixed the secrets file's mode to 0600.")
        default_space()
        User = get_user_model()
        username = settings.MEMORYHUB["ADMIN_USER"]
        if User.objects.filter(username=username).exists():
            return
        password = os.environ.get("MEMORYHUB_ADMIN_PASSWORD") or secrets.token_urlsafe(12)
        User.objects.create_superuser(username=username, email="", password=password)
        if os.environ.get("MEMORYHUB_ADMIN_PASSWORD"):
            self.stdout.write(f"Created staff user {username!r} with the password from MEMORYHUB_ADMIN_PASSWORD.")
        else:
            self.stdout.write(
                f"Created staff user {username!r} with password: {password}\n"
                "This is shown once. Change it under /admin/ or set MEMORYHUB_ADMIN_PASSWORD before the first start."
            )
