"""verstehen: does a language model understand a subject, or only pass the benchmark?"""

__version__ = "0.1.0"
