"""Report ``circuit``: paper 001's Figures 1-20 (circuit-switched HIPPI LANs) from their prose numbers."""
