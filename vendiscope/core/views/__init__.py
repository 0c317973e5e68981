"""What views show: view data, chart descriptions and their rendering."""
