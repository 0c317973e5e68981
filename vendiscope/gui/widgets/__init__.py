"""The look and shared widgets: style, icons, palettes, plain-text labels, legends, forms,
plugin forms and read-only tables."""
