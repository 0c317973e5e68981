"""Where the data is thin: clustering and the Prismatic gap filter."""
