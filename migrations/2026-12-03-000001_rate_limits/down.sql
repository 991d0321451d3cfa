DROP TABLE relay_rate_limits;
