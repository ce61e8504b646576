"""Run inside a hub process (see procs.in_django): wait for a Job to reach a status."""

import time

from memoryhub.jobs.models import Job


def wait_for(job: Job, status: str, limit: float = 60, progress: int = 0) -> Job:
    deadline = time.monotonic() + limit
    while True:
        job.refresh_from_db()
        if job.status == status and job.progress >= progress:
            return job
        if time.monotonic() > deadline:
            raise AssertionError(f"job {job.pk} is {job.status} at {job.progress}%, not {status}: {job.error}")
        time.sleep(0.2)
