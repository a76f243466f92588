"""swingdb's torture suite: `python -m stress --minutes N` (see __main__)."""
