"""The arbitrator's console: server-side pages that call the services and the selectors."""
