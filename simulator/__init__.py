"""Tabletop simulator: bots play Nerts rounds; a renderer films them with ground truth."""
