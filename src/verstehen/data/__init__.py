"""Loaders for question files given by path (multiple choice: CSQA, ARC, MMLU)."""
