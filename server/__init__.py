"""cardarena's referee side: the rules engines, the match runner, the gRPC services and the CLI."""
