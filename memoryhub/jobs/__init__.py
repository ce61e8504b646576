"""Background work: the Job rows people watch, the registry of what the worker may run (each app registers
its own in AppConfig.ready()), and the runner that hands it to django-q2."""
