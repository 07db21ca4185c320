"""A plugin module that ends the process when imported."""

import sys

sys.exit(3)
