"""The web console at `/console/`: static pages and scripts shipped in the package that
call the platform and EPCIS APIs with the signed-in user's session cookie."""
