"""ApiToken, AgentSession and RateWindow now belong to the agents app; their tables stay where they are."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("api", "0003_rate_window"),
        ("agents", "0001_initial"),
        ("vault", "0003_token_in_agents"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.DeleteModel(name="RateWindow"),
                migrations.DeleteModel(name="AgentSession"),
                migrations.DeleteModel(name="ApiToken"),
            ],
        ),
    ]
