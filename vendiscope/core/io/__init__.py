"""Getting data in and out: reading sources, detecting fields, importing, exporting."""
