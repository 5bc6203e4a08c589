"""Private runtime: embedded server, background client loop."""
