"""What every method's report shares: plain text tables and PNG figures."""
