"""memoryhub's SQLite backend (`ENGINE: memoryhub.core.sqlite`): Django's, with every write queued for the lock.

SQLite admits one writer at a time; the others sleep in its busy handler (1, 2, 5, 10 … ms between
tries), so writers racing for it left it idle much of the time and any path that forgot to queue could
meet `database is locked`. Here every write transaction (each `atomic()`, which begins IMMEDIATE) and
every write statement outside one first takes this machine's writer lock (writer.py): a thread lock,
then an `flock` of `<database>.writer-lock`, so threads and processes queue and the kernel wakes the
next writer the moment the lock is free. Reads outside a transaction never queue (WAL lets them run
beside the writer). PostgreSQL keeps Django's own backend.
"""
