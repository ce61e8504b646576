"""Tokens, agent sessions and rate windows move here from the `api` app: state only, the tables stay.

The tables keep their names (`api_apitoken`, `api_apitoken_spaces`, `api_agentsession`,
`api_ratewindow`), so an existing hub keeps every token, session and vault request as it was.
The content types are renamed too, so admin permissions and log entries follow the models.
"""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

MOVED = ("apitoken", "agentsession", "ratewindow")


def relabel(old: str, new: str):
    def run(apps, schema_editor):
        ContentType = apps.get_model("contenttypes", "ContentType")
        for model in MOVED:
            if not ContentType.objects.filter(app_label=new, model=model).exists():
                ContentType.objects.filter(app_label=old, model=model).update(app_label=new)

    return run


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("api", "0003_rate_window"),
        ("spaces", "0001_initial"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="ApiToken",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("name", models.CharField(max_length=100)),
                        ("prefix", models.CharField(help_text="The first characters, to recognise a token without storing it.", max_length=12)),
                        ("token_hash", models.CharField(max_length=64, unique=True)),
                        ("origin", models.CharField(default="local", max_length=60)),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        ("last_used_at", models.DateTimeField(blank=True, null=True)),
                        ("revoked_at", models.DateTimeField(blank=True, null=True)),
                        ("created_by", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
                        ("spaces", models.ManyToManyField(blank=True, related_name="tokens", to="spaces.memoryspace")),
                    ],
                    options={"db_table": "api_apitoken", "ordering": ["name"]},
                ),
                migrations.CreateModel(
                    name="AgentSession",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("session_id", models.CharField(max_length=200)),
                        ("started_at", models.DateTimeField(default=django.utils.timezone.now)),
                        ("last_seen_at", models.DateTimeField(default=django.utils.timezone.now)),
                        ("ended_at", models.DateTimeField(blank=True, null=True)),
                        ("snapshot", models.JSONField(blank=True, default=dict, help_text="What was frozen at the session's first context call.")),
                        ("token", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="sessions", to="agents.apitoken")),
                    ],
                    options={
                        "db_table": "api_agentsession",
                        "constraints": [models.UniqueConstraint(fields=("token", "session_id"), name="session_unique_per_token")],
                    },
                ),
                migrations.CreateModel(
                    name="RateWindow",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("minute", models.BigIntegerField(help_text="Minutes since the epoch.")),
                        ("count", models.PositiveIntegerField(default=0)),
                        ("token", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+", to="agents.apitoken")),
                    ],
                    options={
                        "db_table": "api_ratewindow",
                        "constraints": [models.UniqueConstraint(fields=("token", "minute"), name="rate_window_token_minute")],
                    },
                ),
            ],
        ),
        migrations.RunPython(relabel("api", "agents"), relabel("agents", "api")),
    ]
