"""Placeholder: the compiled backend is registered by fast_compiler once built."""
