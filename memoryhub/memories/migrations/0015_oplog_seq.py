"""Number each space's op log rows (seq) so a write trims its own space's log to OPLOG_KEEP; choices as TextChoices."""

from django.db import migrations, models

NUMBER = ("UPDATE memories_oplog SET seq = numbered.n FROM (SELECT id, ROW_NUMBER() OVER "
          "(PARTITION BY space_id ORDER BY id) AS n FROM memories_oplog) AS numbered WHERE memories_oplog.id = numbered.id")


class Migration(migrations.Migration):
    dependencies = [("memories", "0014_moved_task_paths")]

    operations = [
        migrations.AddField(model_name="oplog", name="seq", field=models.PositiveBigIntegerField(default=0, editable=False)),
        migrations.RunSQL(NUMBER, migrations.RunSQL.noop),
        migrations.AddIndex(model_name="oplog", index=models.Index(fields=["space", "seq"], name="oplog_space_seq")),
        migrations.AlterField(
            model_name="consolidationrun", name="method",
            field=models.CharField(choices=[("rule", "rule"), ("llm", "llm"), ("manual", "manual")], default="rule",
                                   help_text="How digests were written.", max_length=10),
        ),
        migrations.AlterField(
            model_name="entry", name="source",
            field=models.CharField(choices=[("user", "user"), ("agent", "agent"), ("external", "external"),
                                            ("import", "import")], default="agent", max_length=20),
        ),
        migrations.AlterField(
            model_name="fact", name="method",
            field=models.CharField(choices=[("rule", "rule"), ("llm", "llm"), ("manual", "manual")], default="rule",
                                   max_length=10),
        ),
    ]
