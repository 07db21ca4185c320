"""Certified understanding (Leyton-Brown and Shoham, *Understanding Understanding*): a scope,
a passing grade PG, a ridiculousness threshold RID, and KL-Chernoff verdicts at confidence 1-δ."""
