"""cardarena's Python bot SDK (import ``cardarena.client``)."""
