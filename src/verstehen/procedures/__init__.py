"""Procedures: one per method; each builds prompts, asks models through the runner, scores."""
