# A centre's results files of a game played from a sealed pack, and their push to the organiser (issue 25, part 4).

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0018_game_pack_trusted_keys'),
    ]

    operations = [
        migrations.CreateModel(
            name='CentreResults',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('sequence', models.PositiveIntegerField()),
                ('final', models.BooleanField(default=False)),
                ('sha256', models.CharField(max_length=64)),
                ('text', models.TextField()),
                ('made_at', models.DateTimeField(auto_now_add=True)),
                ('push_state', models.CharField(blank=True, choices=[('', 'Not pushed'), ('pending', 'Pending'), ('sent', 'Acknowledged'), ('refused', 'Refused'), ('failed', 'Failed')], default='', max_length=10)),
                ('push_attempts', models.PositiveIntegerField(default=0)),
                ('pushed_at', models.DateTimeField(blank=True, null=True)),
                ('push_answer', models.JSONField(blank=True, null=True)),
                ('game', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='centre_results', to='tournaments.game')),
            ],
            options={
                'ordering': ['game_id', 'sequence'],
                'constraints': [models.UniqueConstraint(fields=('game', 'sequence'), name='centre_results_sequence')],
            },
        ),
    ]
