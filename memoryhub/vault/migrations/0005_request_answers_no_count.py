"""#31: a request no longer keeps the count its agent was told (`in_scope`): agents are told no count at all."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('vault', '0004_request_in_scope'),
    ]

    operations = [
        migrations.RemoveField(
            model_name='accessrequest',
            name='in_scope',
        ),
        migrations.AlterField(
            model_name='accessrequest',
            name='matched',
            field=models.PositiveIntegerField(default=0, help_text='How many entries matched: for the person deciding, never told to the agent (grants.MATCHED_FOR_AGENTS).'),
        ),
    ]
