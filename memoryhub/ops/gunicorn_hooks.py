"""gunicorn settings `serve` loads (`-c python:memoryhub.ops.gunicorn_hooks`): a worker never outlives its master.

Without this, a gunicorn master killed outright left its worker running, still answering on the master's
SO_REUSEPORT socket beside the master `serve` starts in its place (possibly with older code).
"""

import os
import signal

from memoryhub.ops.supervise import set_parent_death_signal


def post_fork(server, worker):
    set_parent_death_signal(signal.SIGTERM)
    if os.getppid() != server.pid:  # the master died before the line above took effect
        os.kill(os.getpid(), signal.SIGTERM)
