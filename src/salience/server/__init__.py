"""The HTTP face: ``salience serve`` (FastAPI, run by uvicorn), keys and tenants."""
