"""Sharing memories between stores: mounted layers, knowledge packs, JSON Lines."""
