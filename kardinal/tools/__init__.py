"""Tools for developers: benchmarks."""
