"""The GS1 Digital Link resolver at the root of the service."""
