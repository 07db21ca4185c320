"""Pure statistics that several methods use: confidence bounds and rates with their standard
errors. No I/O."""
