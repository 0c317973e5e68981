"""Project storage: schema, engine, migrations, vector chunks."""
