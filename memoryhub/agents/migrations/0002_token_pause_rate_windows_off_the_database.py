"""A token can be paused (and resumed with its settings intact); rate windows leave the database.

Counting every call in `api_ratewindow` took SQLite's write lock on every read; the counts now live
in a memory-mapped file shared by the machine's web processes, or in Redis (agents/rates.py).
"""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("agents", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="paused_at",
            field=models.DateTimeField(blank=True, help_text="While set, calls are refused with 403 paused; the token "
                                       "keeps its settings and resumes when cleared.", null=True),
        ),
        migrations.DeleteModel(
            name="RateWindow",
        ),
    ]
