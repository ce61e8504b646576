"""Imported and copied memories keep where they came from; a space copied into another keeps a receipt per memory."""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("memories", "0021_redact_stored_fields"),
        ("spaces", "0005_workspace_export"),
    ]

    operations = [
        migrations.AddField(
            model_name="entry",
            name="provenance",
            field=models.JSONField(blank=True, default=dict, help_text=(
                "Where an imported or copied memory came from: the system, its id there and the metadata it had "
                "(maintenance/importers, copies.py).")),
        ),
        migrations.CreateModel(
            name="SpaceCopy",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("created_by", models.CharField(blank=True, max_length=200)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("forgotten_at", models.DateTimeField(
                    blank=True, null=True, help_text="When a person last removed the copied memories from the source.")),
                ("source", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="copies_out",
                                             to="spaces.memoryspace")),
                ("target", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="copies_in",
                                             to="spaces.memoryspace")),
            ],
            options={"ordering": ["-created_at", "-id"]},
        ),
        migrations.AddConstraint(
            model_name="spacecopy",
            constraint=models.UniqueConstraint(fields=("source", "target"), name="spacecopy_unique_pair"),
        ),
        migrations.CreateModel(
            name="CopyReceipt",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("source_id", models.CharField(help_text="The entry's id, or the engine's record id.", max_length=500)),
                ("state", models.CharField(choices=[
                    ("committed", "committed"), ("accepted", "accepted"),
                    ("pending_verification", "pending_verification"), ("unknown", "unknown"), ("failed", "failed")],
                    db_index=True, max_length=24)),
                ("target_id", models.CharField(blank=True, help_text="The entry, record id or URI in the target.",
                                               max_length=1000)),
                ("error", models.TextField(blank=True)),
                ("attempts", models.PositiveIntegerField(default=1)),
                ("source_forgotten", models.BooleanField(default=False)),
                ("updated_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("copy", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="receipts",
                                           to="memories.spacecopy")),
            ],
            options={"ordering": ["id"]},
        ),
        migrations.AddConstraint(
            model_name="copyreceipt",
            constraint=models.UniqueConstraint(fields=("copy", "source_id"), name="copyreceipt_unique_source"),
        ),
    ]
