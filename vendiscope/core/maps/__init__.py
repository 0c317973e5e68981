"""2-D maps of a vector set: projection and the map job."""
