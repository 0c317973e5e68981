"""Views from plugins and the chart renderer."""
