"""Running the service over HTTP: health and information, metrics, CORS and security
headers, read routing, the first start's checks."""
