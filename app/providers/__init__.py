"""Model providers: each turns the engine's messages into one API's requests and streams back chunks."""
