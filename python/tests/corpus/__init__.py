"""The exporter's corpus of tinygrad graphs (see registry.py)."""
