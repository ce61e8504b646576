"""Background work: the Job rows people watch, the registry of what the worker may run, and the runner that hands it to django-q2."""
