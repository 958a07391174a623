"""Settings for the whole suite."""

from __future__ import annotations

from hypothesis import settings

# Speed is measured by benchmarks, never asserted in tests: Hypothesis's per-example deadline
# (200 ms) would turn a busy machine (two test processes on two cores) into failures.
settings.register_profile("coffeetable", deadline=None)
settings.load_profile("coffeetable")
