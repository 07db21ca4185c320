"""Conceptual consistency (Sahu et al., ICLR 2023): does knowing the background facts of a
question predict answering it? CC is the average precision of S_A from S_B."""
