"""Running the hub, for the person who operates it: serve, ensure_admin, backup and restore.

These commands serve the whole hub rather than one app's data, so they live in this small app of
their own (a face like the dashboard: it may use every layer below, nothing imports it).
"""
