"""swingdb benchmarks (run with `python -m bench`)."""
