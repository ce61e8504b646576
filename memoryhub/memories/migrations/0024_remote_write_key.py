"""A third-party write keeps its idempotency key, one write per key and origin in a space: a resent key answers the
first write's receipt instead of sending the memory again. Writes kept before had no key and keep none."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("memories", "0023_retokenize"),
    ]

    operations = [
        migrations.AddField(
            model_name="remotewrite",
            name="idempotency_key",
            field=models.CharField(blank=True, max_length=200),
        ),
        migrations.AddConstraint(
            model_name="remotewrite",
            constraint=models.UniqueConstraint(condition=~models.Q(idempotency_key=""),
                                               fields=("space", "origin", "idempotency_key"),
                                               name="remotewrite_unique_key"),
        ),
    ]
