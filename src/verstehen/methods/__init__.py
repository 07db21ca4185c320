"""The four methods, one folder each: everything specific to a method lives in its folder."""
