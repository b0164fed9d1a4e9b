from server.cli import app

app()
