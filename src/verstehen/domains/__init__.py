"""Exactly-graded concept domains: checkers, generators and use-task items."""
