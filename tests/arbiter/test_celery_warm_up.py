"""A Celery pool process loads the compiled move search when it starts (worker_process_init)."""
from celery import signals

from arbiter.celery import warm_up_search
from engine import search


def test_a_pool_process_warms_the_move_search_up_when_it_starts():
    answers = dict(signals.worker_process_init.send(sender=None))
    thread = answers[warm_up_search]
    thread.join(timeout=180)
    assert not thread.is_alive()
    assert (search._kernel() is not None) == search.compiled_search_installed()
