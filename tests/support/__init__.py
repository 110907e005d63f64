"""Test support shared by the Python tests and benchmarks (tests/README.md).

Import it as `from support import common` with PYTHONPATH=<source>/tests:
CTest sets it for every test (tests/CMakeLists.txt); by hand, e.g.
`PYTHONPATH=tests python3 tests/bench/bench_driver.py build/guest`.
"""
