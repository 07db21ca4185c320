"""What every method's terminal text shares: plain-text tables, escaped terminal lines, and the
`Display` mixin that gives each result its `text()`, `tables()` and notebook views."""
