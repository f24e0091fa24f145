"""One APIRouter per resource; `server/app.py` lists them in `ROUTERS`."""
