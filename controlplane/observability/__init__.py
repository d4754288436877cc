"""What operators watch: Prometheus metrics, health and readiness, structured logs with request ids."""
