"""A request's token is now agents.ApiToken: the same table (api_apitoken), so only the state changes."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("agents", "0001_initial"),
        ("vault", "0002_request_entries"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.AlterField(
                    model_name="accessrequest",
                    name="token",
                    field=models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL,
                                            related_name="requests", to="agents.apitoken"),
                ),
            ],
        ),
    ]
