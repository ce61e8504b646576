"""Benchmarks: `make bench` runs them and prints figures with a baseline from the same run."""
